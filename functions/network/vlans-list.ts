// GET /api/v1/network/vlans: List VLAN allocations (a reseller sees its own)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { pageOf } from '../core/schemas.js';
import { listAllocations } from '../store/vlans.js';
import { VlansPage, VlansQuery } from './schemas.js';

/** An admin sees every VLAN; a reseller its own (subscribers are refused by the auth level). */
export const handler = sessionEndpoint(
  'GET /api/v1/network/vlans',
  { query: VlansQuery, ok: VlansPage },
  async ({ query, principal }) => {
    const all = await listAllocations(resellerInScope(principal, undefined, { adminMayOmit: true }));
    return json(200, pageOf(all, query.page, query.page_size));
  },
);
