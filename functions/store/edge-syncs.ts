// When each in-country edge last fetched its replica, read by the link watch to tell a cut from a power cut.

import { entity } from './entity.js';

/**
 * When each in-country edge last fetched its replica (functions/edge/edge-replica.ts): an edge
 * syncs every EDGE_SYNC_S (60 s) while its country's link is up, so an edge that stops syncing
 * while its country's routers fall silent is what only a cut link shows, and one that still
 * syncs says the link is up (functions/radius/link-watch.ts). One item per edge, in one
 * partition: a few dozen edges, each writing once a minute.
 */
export interface EdgeSync {
  edge_id: string;
  /** The resellers the edge serves (their countries are the edge's). */
  reseller_ids: string[];
  synced_at: string;
}

const Sync = entity<EdgeSync>('edge_sync')({
  key: (s: Pick<EdgeSync, 'edge_id'>) => ({ pk: 'EDGES#SYNC', sk: `EDGE#${s.edge_id}` }),
});

/** Records an edge's sync now. */
// Access: PutItem pk=EDGES#SYNC, sk=EDGE#<edge_id>.
export const noteEdgeSynced = (sync: EdgeSync): Promise<boolean> => Sync.put(sync);

/** Every edge's last sync (a revoked edge's too: its record says it is revoked). */
// Access: Query pk=EDGES#SYNC, begins_with(sk, EDGE#), every page.
export const edgeSyncs = (): Promise<EdgeSync[]> =>
  Sync.queryAll({ pk: Sync.key({ edge_id: '' }).pk, sk: { beginsWith: 'EDGE#' } });
