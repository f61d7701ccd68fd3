// POST /api/v1/edge/replica: An in-country edge's replica: its resellers' routers, NAS ids and the codes that can still log in (docs/outage.md)

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { noteEdgeSynced } from '../store/edge-syncs.js';
import './edge-auth.js';
import { replicaPage } from './replica.js';
import { ReplicaBody, ReplicaSchema } from './schemas.js';

/**
 * An in-country edge's replica (docs/outage.md), for its own resellers only: a page of a first
 * sync, or of the changes since the cursor its last sync was handed (functions/edge/replica.ts).
 * Each answer is recorded as the edge's last sync: an edge that stops syncing while its country's
 * routers fall silent is how the region tells a cut link from a power cut
 * (functions/radius/link-watch.ts).
 */
export const handler = endpoint(
  'POST /api/v1/edge/replica',
  { body: ReplicaBody, ok: ReplicaSchema },
  async ({ body, principal, headers }) => {
    const now = clock.now();
    const page = await replicaPage(principal, body, now, headers.authorization);
    await noteEdgeSynced({
      edge_id: principal.edgeId,
      reseller_ids: [...principal.resellerIds],
      synced_at: new Date(now).toISOString(),
    });
    return json(200, page);
  },
);
