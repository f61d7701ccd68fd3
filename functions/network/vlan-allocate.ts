// POST /api/v1/network/vlan/allocate: Allocate a reseller's VLAN, NAS id, SSID and gateway rules

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { AllocateBody, AllocationResponse } from './schemas.js';
import { allocateVlan, inLane } from './vlans.js';

const allocate = sessionEndpoint(
  'POST /api/v1/network/vlan/allocate',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_DUPLICATE_NAS_ID', 'ERR_VLAN_POOL_EXHAUSTED'],
    body: AllocateBody,
    created: AllocationResponse,
  },
  async ({ body }) => {
    const a = await allocateVlan({
      resellerId: body.reseller_id,
      ...(body.reseller_name !== undefined ? { resellerName: body.reseller_name } : {}),
      ...(body.site_count !== undefined ? { siteCount: body.site_count } : {}),
    });
    return json(201, { vlan_id: a.vlan_id, subnet: a.subnet, nas_id: a.nas_id, ssid: a.ssid });
  },
);

/**
 * The lane is taken before the endpoint's clock starts: in one process serving many requests
 * (the local server) a queued allocation waits outside its 10 s, as it would in AWS, where
 * another container serves it; a Lambda container serves one request at a time, so it never
 * waits there.
 */
export const handler = Object.assign(
  (...args: Parameters<typeof allocate>) => inLane(() => allocate(...args)),
  { contract: allocate.contract },
);
