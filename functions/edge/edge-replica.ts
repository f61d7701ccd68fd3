// POST /api/v1/edge/replica: An in-country edge's replica: its resellers' routers, NAS ids and the codes that can still log in (docs/outage.md)

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import './edge-auth.js';
import { replicaOf } from './replica.js';
import { ReplicaBody, ReplicaSchema } from './schemas.js';

/** An in-country edge's replica (docs/outage.md), for its own resellers only. */
export const handler = endpoint(
  'POST /api/v1/edge/replica',
  { body: ReplicaBody, ok: ReplicaSchema },
  async ({ body, principal }) => json(200, await replicaOf(principal, body.codes ?? [], clock.now())),
);
