import { clock } from '../core/clock.js';
import { forbidden } from '../core/errors.js';
import { endpoint, json } from '../core/http.js';
import { edgeOfBearer } from './edge-auth.js';
import { replicaOf } from './replica.js';
import { ReplicaBody, ReplicaSchema } from './schemas.js';

/**
 * An in-country edge's replica (docs/outage.md): a RADIUS server's route, answered only to an
 * edge (the region's own front has no resellers to be scoped to: 403), for its resellers only.
 */
export const handler = endpoint(
  'POST /api/v1/edge/replica',
  { body: ReplicaBody, ok: ReplicaSchema, errors: ['ERR_FORBIDDEN'] },
  async ({ body, headers }) => {
    const edge = await edgeOfBearer(headers.authorization);
    if (!edge) throw forbidden('Only an edge has a replica');
    return json(200, await replicaOf(edge, body.codes ?? [], clock.now()));
  },
);
