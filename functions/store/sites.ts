// A multi-site reseller's extra sites (hotspots) inside its VLAN: created, listed, deleted.

import { Branding } from './branding.js';
import { allOf, cancelled, entity, transact } from './entity.js';
import { Nas } from './nas.js';
import { Reseller } from './resellers.js';

/** An extra site (hotspot) of a multi-site reseller, inside the reseller's VLAN. */
export interface Site {
  site_id: string;
  reseller_id: string;
  site_number: number;
  nas_id: string;
  ssid: string;
  ap_ip: string;
  city: string;
  latitude: number;
  longitude: number;
  created_at: string;
}

export const SiteEntity = entity<Site>('site')({
  // Beside the reseller's profile: one Query of the partition lists its sites.
  key: (s: Pick<Site, 'reseller_id' | 'site_number'>) => ({
    pk: `RESELLER#${s.reseller_id}`,
    sk: `SITE#${String(s.site_number).padStart(3, '0')}`,
  }),
});

/** The sort-key prefix of every site of a reseller. */
const SITE_PREFIX = 'SITE#';

export type CreateSiteResult = 'ok' | 'site_taken' | 'nas_taken' | 'no_vlan';

/**
 * Creates a site and claims its NAS id together, while the reseller holds the VLAN the site was
 * built for and is not releasing it.
 */
// Access: TransactWriteItems [Put RESELLER#<id>/SITE#<nnn> (not exists), Put NAS#<nas_id> (not exists),
// ConditionCheck RESELLER#<id>/PROFILE (vlan_id = :v, not releasing)].
export async function createSite(
  site: Site,
  vlanId: number,
  resellerName: string,
): Promise<CreateSiteResult> {
  try {
    await transact({
      site: SiteEntity.tx.create(site),
      nas: Nas.tx.create({
        nas_id: site.nas_id,
        reseller_id: site.reseller_id,
        reseller_name: resellerName,
        vlan_id: vlanId,
        kind: 'site',
        site_number: site.site_number,
      }),
      vlan: Reseller.tx.check(
        site,
        allOf(Reseller.where.is('vlan_id', vlanId), Reseller.where.lacks('releasing')),
      ),
    });
    return 'ok';
  } catch (error) {
    const c = cancelled<'site' | 'nas' | 'vlan'>(error);
    if (!c) throw error;
    if (c.failed('site')) return 'site_taken';
    if (c.failed('vlan')) return 'no_vlan';
    if (c.failed('nas')) return 'nas_taken';
    // Two requests for the same site at once: the loser sees a conflict, as if it came second.
    if (c.conflict) return 'site_taken';
    throw error;
  }
}

// Access: Query pk=RESELLER#<id> AND begins_with(sk, 'SITE#'), strongly consistent, in site number order.
export const listSites = (resellerId: string): Promise<Site[]> =>
  SiteEntity.queryAll({
    pk: SiteEntity.key({ reseller_id: resellerId, site_number: 0 }).pk,
    sk: { beginsWith: SITE_PREFIX },
    consistent: true,
  });

/** Sites deleted per transaction (3 items each, within DynamoDB's 100). */
const SITES_PER_TRANSACTION = 30;

/** Deletes sites with their NAS ids and branding (a VLAN's release, before its own items). */
// Access: TransactWriteItems per 30 sites [Delete RESELLER#<id>/SITE#<nnn>, Delete NAS#<nas_id>, Delete BRANDING#<nas_id>].
export async function deleteSites(sites: readonly Site[]): Promise<void> {
  for (let i = 0; i < sites.length; i += SITES_PER_TRANSACTION) {
    const chunk = sites.slice(i, i + SITES_PER_TRANSACTION);
    await transact(
      Object.fromEntries(
        chunk.flatMap((s) => [
          [`site${s.site_number}`, SiteEntity.tx.delete(s)],
          [`nas${s.site_number}`, Nas.tx.delete(s)],
          [`branding${s.site_number}`, Branding.tx.delete(s)],
        ]),
      ),
    );
  }
}
