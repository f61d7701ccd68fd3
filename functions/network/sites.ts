import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError, forbidden, notFound } from '../core/errors.js';
import type { Principal } from '../core/tokens.js';
import { createSite, listSites, type Site } from '../store/sites.js';
import { getReseller } from '../store/vlans.js';
import { hostOf, siteNasIdOf, ssidOf } from './naming.js';

/** An admin acts for anyone; a reseller only for itself. */
export function assertActsFor(principal: Principal | undefined, resellerId: string): void {
  if (principal?.role === 'admin') return;
  if (principal?.role === 'reseller' && principal.resellerId === resellerId) return;
  throw forbidden('You may only act for your own reseller account');
}

export async function addSite(
  principal: Principal | undefined,
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
  const city = input.city.trim();
  const site: Site = {
    site_id: randomUUID(),
    reseller_id: input.reseller_id,
    site_number: input.site_number,
    nas_id: siteNasIdOf(reseller.slug, input.site_number),
    ssid: ssidOf(reseller.reseller_name, city),
    ap_ip: hostOf(reseller.vlan_id, input.site_number + 1),
    city,
    latitude: input.latitude,
    longitude: input.longitude,
    created_at: clock.iso(),
  };
  if (!(await createSite(site, reseller.vlan_id, reseller.reseller_name))) {
    throw new AppError('ERR_CONFLICT', `Site ${input.site_number} of this reseller exists already`);
  }
  return site;
}

export async function sitesOf(principal: Principal | undefined, resellerId: string): Promise<Site[]> {
  assertActsFor(principal, resellerId);
  if (!(await getReseller(resellerId))) throw notFound('Reseller');
  return listSites(resellerId);
}
