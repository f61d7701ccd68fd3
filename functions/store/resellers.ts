import { entity } from './entity.js';

/**
 * A reseller's network profile: its name (recorded by the operator CLI or at allocation), its
 * site count, and while it holds one, its VLAN. `releasing` marks a VLAN being released: no
 * site may be added to it then.
 */
export interface ResellerProfile {
  reseller_id: string;
  reseller_name?: string;
  site_count?: number;
  vlan_id?: number;
  nas_id?: string;
  slug?: string;
  releasing?: number;
}

export const Reseller = entity<ResellerProfile>()({
  name: 'reseller',
  key: (r: Pick<ResellerProfile, 'reseller_id'>) => ({ pk: `RESELLER#${r.reseller_id}`, sk: 'PROFILE' }),
});

// Access: GetItem pk=RESELLER#<id>, sk=PROFILE (strongly consistent: read just before a write).
export const getReseller = (resellerId: string): Promise<ResellerProfile | undefined> =>
  Reseller.get({ reseller_id: resellerId }, { consistent: true });

/** Records a reseller's name (operator CLI), unless it already has one. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET reseller_name = if_not_exists(...).
export async function recordResellerName(resellerId: string, name: string): Promise<void> {
  await Reseller.update(
    { reseller_id: resellerId },
    {
      expression: 'SET reseller_id = :id, reseller_name = if_not_exists(reseller_name, :n), entity = :e',
      values: { ':id': resellerId, ':n': name, ':e': Reseller.name },
    },
  );
}

/** Marks the reseller's VLAN as being released; false when it does not hold that VLAN. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET releasing, condition vlan_id = :v.
export const markReleasing = (resellerId: string, vlanId: number): Promise<boolean> =>
  Reseller.update(
    { reseller_id: resellerId },
    { expression: 'SET releasing = :v', values: { ':v': vlanId } },
    { expression: 'vlan_id = :v' },
  );
