// POST /api/v1/radius/disconnects/{id}/result: A router's answer to a Disconnect-Request: ACK closes the session, NAK or silence is retried

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { SessionIdParams } from '../monitoring/schemas.js';
import { recordResult } from './disconnect.js';
import { DisconnectViewSchema, ResultBody } from './schemas.js';

/** The relay's report of one send: the router's ACK, NAK (with its Error-Cause) or silence. */
export const handler = endpoint(
  'POST /api/v1/radius/disconnects/{id}/result',
  { errors: ['ERR_NOT_FOUND'], params: SessionIdParams, body: ResultBody, ok: DisconnectViewSchema },
  async ({ params, body }) => json(200, await recordResult(params.id, body, clock.now())),
);
