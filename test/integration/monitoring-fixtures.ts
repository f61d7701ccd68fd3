import { Nas } from '../../functions/store/nas.js';

/** Records a hotspot (NAS id) of a reseller, with the network area's own item builder. */
export async function giveSite(resellerId: string, nasId: string): Promise<void> {
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'Test', vlan_id: 10, kind: 'vlan' });
}
