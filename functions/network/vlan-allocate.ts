import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { AllocateBody, AllocationResponse } from './schemas.js';
import { allocateVlan } from './vlans.js';

export const handler = sessionEndpoint(
  'POST /api/v1/network/vlan/allocate',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_DUPLICATE_NAS_ID', 'ERR_VLAN_POOL_EXHAUSTED'],
    body: AllocateBody,
    response: { status: 201, schema: AllocationResponse },
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
