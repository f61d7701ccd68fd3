// POST /api/v1/radius/client: FreeRADIUS's dynamic client lookup: the UDP router registered at a source address, with its secret

import { endpoint } from '../core/http.js';
import { answerClient, CLIENT_CONTRACT } from './answers.js';

/** The front's FreeRADIUS asks its task's service (functions/radius/answers.ts). */
export const handler = endpoint('POST /api/v1/radius/client', CLIENT_CONTRACT, ({ body }) =>
  answerClient(body),
);
