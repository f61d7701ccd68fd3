// POST /api/v1/radius/authorize: May this access code connect at this hotspot? The reply carries time, rate and data limits

import { endpoint } from '../core/http.js';
import { AUTHORIZE_CONTRACT, answerAuthorize } from './answers.js';

/** The front's FreeRADIUS asks its task's service (functions/radius/answers.ts). */
export const handler = endpoint('POST /api/v1/radius/authorize', AUTHORIZE_CONTRACT, ({ body }) =>
  answerAuthorize(body),
);
