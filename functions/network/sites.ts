// A reseller's sites inside its VLAN: each registered once, and listed.

import { randomUUID } from 'node:crypto';
import { assertActsFor } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { getReseller } from '../store/resellers.js';
import { createSite, listSites, type Site } from '../store/sites.js';
import { hostOf, siteNasIdOf, ssidOf } from './naming.js';

/**
 * Registers site `site_number` (1..the reseller's site count, each once) inside the reseller's
 * VLAN: NAS id `access_<slug>_s<n>`, SSID `ACCESS <name> <city>`, access point at host n + 1.
 */
export async function addSite(
  principal: Principal,
  input: { reseller_id: string; site_number: number; city: string; latitude: number; longitude: number },
): Promise<Site> {
  assertActsFor(principal, input.reseller_id);
  const reseller = await getReseller(input.reseller_id);
  if (reseller?.vlan_id === undefined || !reseller.slug || !reseller.reseller_name)
    throw notFound('Reseller VLAN');
  const count = reseller.site_count ?? 1;
  if (input.site_number > count) {
    throw new AppError('ERR_VALIDATION', `site_number must be between 1 and ${count}`, {
      details: [{ path: 'body.site_number', message: `this reseller has ${count} site(s)` }],
    });
  }
  const site: Site = {
    site_id: randomUUID(),
    reseller_id: input.reseller_id,
    site_number: input.site_number,
    nas_id: siteNasIdOf(reseller.slug, input.site_number),
    ssid: ssidOf(reseller.reseller_name, input.city),
    ap_ip: hostOf(reseller.vlan_id, input.site_number + 1),
    city: input.city,
    latitude: input.latitude,
    longitude: input.longitude,
    created_at: clock.iso(),
  };
  switch (await createSite(site, reseller.vlan_id, reseller.reseller_name)) {
    case 'ok':
      return site;
    case 'site_taken':
      throw new AppError('ERR_CONFLICT', `Site ${input.site_number} of this reseller exists already`);
    case 'nas_taken':
      throw new AppError('ERR_DUPLICATE_NAS_ID', `NAS id ${site.nas_id} belongs to another hotspot`);
    case 'no_vlan':
      throw notFound('Reseller VLAN');
  }
}

/** The reseller's sites, in site number order (owner or admin); 404 for a reseller never seen. */
export async function sitesOf(principal: Principal, resellerId: string): Promise<Site[]> {
  assertActsFor(principal, resellerId);
  if (!(await getReseller(resellerId))) throw notFound('Reseller');
  return listSites(resellerId);
}
