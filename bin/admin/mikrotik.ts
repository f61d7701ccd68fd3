// The operator CLI's `mikrotik` commands: a router's RouterOS script and the hotspot's login page.

import { isNasIdShape } from '../../functions/network/naming.js';
import { radiusSettings } from '../../functions/radius/settings.js';
import {
  accessOf,
  paymentHosts as hosts,
  hotspotLoginPage,
  type RouterAccess,
  ScriptError,
  routerOsScript as script,
} from '../../functions/routers/routeros-script.mjs';
import { UsageError } from './context.js';

export type { RouterAccess, RouterScriptOptions } from '../../functions/routers/routeros-script.mjs';

// The generator is functions/routers/routeros-script.mts, which the API uses too (it answers the
// script with a router's new credentials); here its refusals are usage errors of the command.

const asUsage =
  <A extends unknown[], R>(fn: (...args: A) => R) =>
  (...args: A): R => {
    try {
      return fn(...args);
    } catch (error) {
      throw error instanceof ScriptError ? new UsageError(error.message) : error;
    }
  };

/** The RouterOS script of one router (functions/routers/routeros-script.mts), usage errors for the CLI. */
export const routerOsScript = asUsage(script);
/** The payment gateway's page hosts, for the walled garden. */
export const paymentHosts = asUsage(hosts);

/**
 * The hotspot's login page with the portal's base URL written in (deploy/mikrotik/login.html
 * without its comment; the RouterOS 7 setup script writes the same page itself).
 */
export function loginHtml(portalUrl: string): string {
  let url: URL;
  try {
    url = new URL(portalUrl);
  } catch {
    throw new UsageError('--portal-url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError('--portal-url must be http(s)');
  return hotspotLoginPage(url.href);
}

const USAGE =
  'mikrotik script (--nas-id <id> | --router-id <id>) [--routeros 7|6] [--source-ip <ip> (UDP, RouterOS 6)] [--radius-host <ip,ip>] [--disconnect-from <ip,ip>] [--edge-host <ip>] [--portal-url <url>] [--dns-name <name>] | mikrotik login-html [--portal-url <url>]';

/**
 * `mikrotik script`: prints the one-paste RouterOS script of a router, with credentials issued
 * for it now (they are shown nowhere else): with `--nas-id`, a new router is registered for that
 * hotspot (RouterOS 7: RadSec; 6, or `--source-ip` on 7: UDP bound to that address); with
 * `--router-id`, that router gets new credentials (its previous certificate or secret stops
 * working). Defaults: RADIUS_HOST (the stack's RadiusAddresses), RADIUS_DISCONNECT_FROM (its
 * RadiusEgressAddresses) and PUBLIC_BASE_URL from the environment; the walled garden
 * follows PAYMENT_PROVIDER. `mikrotik login-html`: the login page.
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const flag = (name: string, env?: string) => {
    const v = flags[name] ?? (env ? process.env[env] : undefined);
    return v && v !== 'true' ? v : undefined;
  };
  const portalUrl = flag('portal-url', 'PUBLIC_BASE_URL');
  if (command === 'login-html') {
    if (!portalUrl) throw new UsageError('--portal-url is required (or PUBLIC_BASE_URL)');
    process.stdout.write(loginHtml(portalUrl));
    return;
  }
  if (command !== 'script') throw new UsageError(USAGE);
  const radiusHost = flag('radius-host', 'RADIUS_HOST');
  const routerOs = Number(flag('routeros') ?? 7);
  if (routerOs !== 6 && routerOs !== 7) throw new UsageError('--routeros must be 6 or 7');
  if (!radiusHost || !portalUrl)
    throw new UsageError(
      `--radius-host (or RADIUS_HOST) and --portal-url (or PUBLIC_BASE_URL) are required\n${USAGE}`,
    );
  const { nasId, access } = await issueFor(flags, routerOs, flag('source-ip'));
  const gateway =
    process.env.PAYMENT_GATEWAY || process.env.PAYMENT_PROVIDER || process.env.AGGREGATOR_MODE || 'sandbox';
  process.stdout.write(
    routerOsScript({
      nasId,
      routerOs,
      radiusHost,
      disconnectFrom: flag('disconnect-from', 'RADIUS_DISCONNECT_FROM') ?? '',
      // The edge of a RadSec router must hold a certificate of the router CA (`edges tls`).
      edgeHost: access.transport === 'udp' ? (flag('edge-host') ?? '') : '',
      radsecEdgeHost: access.transport === 'radsec' ? (flag('edge-host') ?? '') : '',
      access,
      portalUrl,
      paymentHosts: paymentHosts(gateway, process.env.AGGREGATOR_BASE_URL),
      dnsName: flag('dns-name') ?? 'login.wifi',
      macAuthPassword: radiusSettings().RADIUS_MAC_AUTH_PASSWORD,
    }),
  );
}

/** Registers a router for the NAS id, or renews a router's credentials, for the script. */
async function issueFor(
  flags: Record<string, string>,
  routerOs: 6 | 7,
  sourceIp: string | undefined,
): Promise<{ nasId: string; access: RouterAccess }> {
  const { register, rotate } = await import('../../functions/routers/routers.js');
  const { getRouter } = await import('../../functions/store/routers.js');
  const { getNas } = await import('../../functions/store/nas.js');
  const routerId = flags['router-id'];
  let issued: Awaited<ReturnType<typeof register>>;
  if (routerId && routerId !== 'true') {
    const router = await getRouter(routerId);
    if (!router) throw new UsageError(`no router ${routerId}`);
    issued = await rotate(router);
  } else {
    const nasId = flags['nas-id'];
    if (!nasId || nasId === 'true' || !isNasIdShape(nasId))
      throw new UsageError(`--nas-id or --router-id is required\n${USAGE}`);
    const nas = await getNas(nasId);
    if (!nas) throw new UsageError(`no hotspot ${nasId}`);
    const udp = routerOs === 6 || sourceIp !== undefined;
    if (udp && !sourceIp)
      throw new UsageError(
        'RouterOS 6 speaks RADIUS over UDP only: --source-ip <its public address> is required',
      );
    issued = await register({
      reseller_id: nas.reseller_id,
      name: `RouterOS ${routerOs} ${nasId}`,
      nas_ids: [nasId],
      transport: udp ? 'udp' : 'radsec',
      ...(udp ? { source_ip: sourceIp } : {}),
    });
  }
  process.stderr.write(
    `Router ${issued.router.router_id} (${issued.credentials.transport}) for ${issued.router.nas_ids.join(', ')}: its credentials are in this script only.\n`,
  );
  const access: RouterAccess = accessOf(issued);
  return { nasId: issued.router.nas_ids[0] as string, access };
}
