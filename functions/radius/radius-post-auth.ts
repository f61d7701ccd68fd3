// POST /api/v1/radius/post-auth: A login FreeRADIUS accepted (counted for operations)

import { endpoint } from '../core/http.js';
import { answerPostAuth, POST_AUTH_CONTRACT } from './answers.js';

/** The front's FreeRADIUS asks its task's service (functions/radius/answers.ts). */
export const handler = endpoint('POST /api/v1/radius/post-auth', POST_AUTH_CONTRACT, ({ body }) =>
  answerPostAuth(body),
);
