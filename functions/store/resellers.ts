// A reseller's network profile: recorded at onboarding, marked releasing or removed.

import type { Country } from '../core/currency.js';
import { entity, exists } from './entity.js';

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
  /** Where it sells (ISO 3166-1 alpha-2): its prices' currency. Unset: DEFAULT_COUNTRY. */
  country?: Country;
  /** Its last operator account was removed (`accounts remove`): its agents sell nothing. */
  removed_at?: string;
}

export const Reseller = entity<ResellerProfile>('reseller')({
  key: (r: Pick<ResellerProfile, 'reseller_id'>) => ({ pk: `RESELLER#${r.reseller_id}`, sk: 'PROFILE' }),
});

// Access: GetItem pk=RESELLER#<id>, sk=PROFILE (strongly consistent: read just before a write).
export const getReseller = (resellerId: string): Promise<ResellerProfile | undefined> =>
  Reseller.get({ reseller_id: resellerId }, { consistent: true });

/** Marks the reseller's VLAN as being released; false when it does not hold that VLAN. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET releasing, condition vlan_id = :v.
export const markReleasing = (resellerId: string, vlanId: number): Promise<boolean> =>
  Reseller.update(
    { reseller_id: resellerId },
    { set: { releasing: vlanId } },
    Reseller.where.is('vlan_id', vlanId),
  );

/** Marks a reseller removed (its last operator account went): its agents sell no more. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET removed_at (condition: exists).
export const markResellerRemoved = (resellerId: string, nowIso: string): Promise<boolean> =>
  Reseller.update({ reseller_id: resellerId }, { set: { removed_at: nowIso } }, exists);

/**
 * Records a reseller (operator CLI): creates its profile if absent, and sets its country. A
 * country in the other currency zone than the one recorded is refused (`zone_change`): the
 * reseller's revenue aggregate would then add XOF to XAF.
 */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET reseller_id, country[, reseller_name if absent], condition no country OR a country of the same currency.
export async function recordReseller(input: {
  resellerId: string;
  name?: string;
  country?: Country;
  /** The countries of the same currency as `country` (currency.ts knows them). */
  sameZone?: readonly Country[];
}): Promise<'recorded' | 'zone_change'> {
  const key = { reseller_id: input.resellerId };
  // Registered again: no longer removed. Its name is the first one given.
  const update = {
    set: {
      reseller_id: input.resellerId,
      removed_at: undefined,
      ...(input.country ? { country: input.country } : {}),
    },
    ...(input.name ? { ifAbsent: { reseller_name: input.name } } : {}),
  };
  if (!input.country) {
    await Reseller.upsert(key, update);
    return 'recorded';
  }
  const zone = input.sameZone ?? [input.country];
  const ok = await Reseller.upsert(
    key,
    update,
    Reseller.where.lacksOr('country', Reseller.where.oneOf('country', zone)),
  );
  return ok ? 'recorded' : 'zone_change';
}
