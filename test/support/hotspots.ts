import { randomUUID } from 'node:crypto';
import { Nas } from '../../functions/store/nas.js';

/**
 * Records a hotspot of `resellerId` (a VLAN NAS, as a site creation leaves it) under a fresh NAS id
 * starting with `prefix`; answers that id.
 */
export async function hotspotOf(resellerId: string, prefix = 'access_test'): Promise<string> {
  const nasId = `${prefix}_${randomUUID().slice(0, 8)}`;
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Chez Awa',
    vlan_id: 10,
    kind: 'vlan',
  });
  return nasId;
}
