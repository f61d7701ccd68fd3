// DELETE /api/v1/network/vlans/{vlan_id}: Release a VLAN (its sites, NAS ids, branding and rules go with it)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { VlanParams } from './schemas.js';
import { releaseVlan } from './vlans.js';

export const handler = sessionEndpoint(
  'DELETE /api/v1/network/vlans/{vlan_id}',
  { errors: ['ERR_NOT_FOUND'], params: VlanParams, response: { status: 204 } },
  async ({ params }) => {
    await releaseVlan(params.vlan_id);
    return json(204, undefined);
  },
);
