// A router's RouterOS setup script, written with its new credentials by the script generator loaded for it.

import { billingSettings } from '../billing/settings.js';
import { config } from '../core/config.js';
import { log } from '../core/log.js';
import { radiusSettings } from '../radius/settings.js';
import { edgeLinksOf } from '../store/edges.js';
import type { IssuedRouter } from './routeros-script.mjs';
import { routerSettings } from './settings.js';

/**
 * The script generator, loaded when a script is written: in the deployed bundles it is a file of
 * its own beside the function (lib/lazy-chunks.ts), so the functions that can issue credentials
 * (onboarding among them, at the bundle-size limit) do not carry it in their start-up.
 */
const generator = () => import('./routeros-script.mjs');

/**
 * Credentials just issued, with the router's RouterOS setup script (functions/routers/routeros-script.mts,
 * the generator `npm run admin -- mikrotik script` prints too). It goes out in the one answer that
 * holds the secret or the key, since neither is kept in clear: downloaded again, it comes with new
 * credentials (the console's "Télécharger le script" renews them, after asking). It is a RouterOS
 * 7 script, complete with the hotspot's login page (the CLI still writes RouterOS 6 ones). The
 * script is for the router's first NAS id (its identity, sent as NAS-Identifier). Without
 * RADIUS_HOST, or with settings the script cannot hold, the answer has no script: the
 * credentials, once issued, are never lost to a fault of the script.
 */
export async function withScript<T extends IssuedRouter>(
  issued: T,
): Promise<T & { routeros_script?: string }> {
  const { RADIUS_HOST, RADIUS_DISCONNECT_FROM, HOTSPOT_DNS_NAME } = routerSettings();
  if (!RADIUS_HOST) return issued;
  const { accessOf, paymentHosts, routerOsScript, ScriptError } = await generator();
  const resellerId = issued.router.reseller_id;
  const edges = resellerId ? await edgeLinksOf(resellerId) : { udp: [], radsec: [] };
  const c = config();
  const b = billingSettings();
  try {
    const routeros_script = routerOsScript({
      nasId: issued.router.nas_ids[0] as string,
      // RouterOS 7 for both transports: its script writes the login page itself (6 cannot).
      routerOs: 7,
      radiusHost: RADIUS_HOST,
      disconnectFrom: RADIUS_DISCONNECT_FROM,
      edgeHost: edges.udp.join(','),
      radsecEdgeHost: edges.radsec.join(','),
      access: accessOf(issued),
      portalUrl: c.PUBLIC_BASE_URL,
      paymentHosts: paymentHosts(
        b.PAYMENT_GATEWAY ?? b.PAYMENT_PROVIDER ?? c.AGGREGATOR_MODE,
        c.AGGREGATOR_BASE_URL,
      ),
      dnsName: HOTSPOT_DNS_NAME,
      macAuthPassword: radiusSettings().RADIUS_MAC_AUTH_PASSWORD,
    });
    return { ...issued, routeros_script };
  } catch (error) {
    if (!(error instanceof ScriptError)) throw error;
    log.warn('router setup script left out', { reason: error.message });
    return issued;
  }
}
