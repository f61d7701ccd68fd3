// An operator onboards a reseller in one step: its account, its VLAN and its first site.

import { randomUUID } from 'node:crypto';
import { requireMsisdnLoaded } from '../auth/otp.js';
import { type Country, sameZone } from '../core/currency.js';
import { AppError } from '../core/errors.js';
import type { AdminPrincipal } from '../core/principal.js';
import { register, sourceAddress } from '../routers/routers.js';
import { withScript } from '../routers/setup-script.js';
import { getAccount, registerOperator } from '../store/accounts.js';
import { recordReseller } from '../store/resellers.js';
import type { RouterTransport } from '../store/routers.js';
import { addSite } from './sites.js';
import { allocateVlan } from './vlans.js';

/**
 * An operator onboards a reseller in one step, as `npm run admin -- accounts add` and the VLAN
 * and site routes would in three: the account (a new reseller id), the profile (name, country,
 * hence currency), the VLAN with its NAS id, the first site and the first router when given. A number that is
 * already an operator's is refused (409): moving an account between resellers stays a CLI
 * decision (`--change-role`), made knowingly. The steps are not one transaction (the VLAN pool
 * has its own lane); a failure after the account leaves a reseller without a VLAN, which
 * `POST /api/v1/network/vlan/allocate` completes.
 */
export async function onboardReseller(
  principal: AdminPrincipal,
  input: {
    msisdn: string;
    name: string;
    country: Country;
    site_count?: number | undefined;
    first_site?: { city: string; latitude: number; longitude: number } | undefined;
    first_router?: { name: string; transport: RouterTransport; source_ip?: string | undefined } | undefined;
  },
) {
  // Typed as people write it in the reseller's country, or international.
  const msisdn = await requireMsisdnLoaded(input.msisdn, input.country);
  // A UDP router's address is checked before anything is created (the address being taken is
  // only known at registration: that failure leaves the reseller without its router, which
  // POST /api/v1/routers completes).
  if (input.first_router?.transport === 'udp') sourceAddress(input.first_router.source_ip);
  const existing = await getAccount(msisdn);
  if (existing && existing.role !== 'subscriber') {
    throw new AppError('ERR_CONFLICT', 'This number has an operator account already', {
      details: [{ path: 'body.msisdn', message: 'already an operator account' }],
    });
  }
  const resellerId = randomUUID();
  const account = await registerOperator(
    { msisdn, role: 'reseller', resellerId, name: input.name },
    existing && { role: existing.role },
  );
  if (!account) throw new AppError('ERR_CONFLICT', 'This number changed while it was being registered');
  await recordReseller({
    resellerId,
    name: input.name,
    country: input.country,
    sameZone: sameZone(input.country),
  });
  const vlan = await allocateVlan({
    resellerId,
    resellerName: input.name,
    siteCount: input.site_count ?? 1,
  });
  const site = input.first_site
    ? await addSite(principal, { reseller_id: resellerId, site_number: 1, ...input.first_site })
    : undefined;
  // With its RouterOS setup script, as POST /api/v1/routers answers it (credentials shown once).
  const router = input.first_router
    ? await withScript(
        await register({
          reseller_id: resellerId,
          name: input.first_router.name,
          nas_ids: [vlan.nas_id],
          transport: input.first_router.transport,
          ...(input.first_router.source_ip ? { source_ip: input.first_router.source_ip } : {}),
        }),
      )
    : undefined;
  return {
    reseller_id: resellerId,
    msisdn,
    vlan_id: vlan.vlan_id,
    subnet: vlan.subnet,
    nas_id: vlan.nas_id,
    ssid: vlan.ssid,
    ...(site ? { site } : {}),
    ...(router ? { router } : {}),
  };
}
