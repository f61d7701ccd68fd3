import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isNasIdShape } from '../../functions/network/naming.js';
import { radiusSettings } from '../../functions/radius/settings.js';
import { UsageError } from './context.js';

/**
 * The payment pages a subscriber must reach before being logged in, per gateway: the hotspot's
 * walled garden lets through those of the gateway the platform is configured with (the sandbox
 * and the generic `http` gateway are served from the platform's own host, or AGGREGATOR_BASE_URL).
 */
export const PAYMENT_PAGE_HOSTS: Readonly<Record<string, readonly string[]>> = {
  cinetpay: ['*.cinetpay.com'],
  fedapay: ['*.fedapay.com'],
  sandbox: [],
  http: [],
};

/** The gateway's page hosts, from its name and (for `http`) its base URL. */
export function paymentHosts(gateway: string, aggregatorBaseUrl = ''): string[] {
  const hosts = [...(PAYMENT_PAGE_HOSTS[gateway] ?? [])];
  if (gateway === 'http' && aggregatorBaseUrl) {
    try {
      hosts.push(new URL(aggregatorBaseUrl).hostname);
    } catch {
      throw new UsageError('AGGREGATOR_BASE_URL must be an absolute URL');
    }
  }
  return hosts;
}

/** How the router speaks to the RADIUS front, with the credentials issued to it. */
export type RouterAccess =
  | { transport: 'radsec'; routerId: string; certificatePem: string; privateKeyPem: string; caPem: string }
  | { transport: 'udp'; routerId: string; secret: string };

export interface RouterScriptOptions {
  nasId: string;
  /** RouterOS major version: 7 speaks RadSec (`protocol=radsec`), 6 only UDP. */
  routerOs: 6 | 7;
  /** The RADIUS front the router asks: an IP address (RouterOS takes no name there). */
  radiusHost: string;
  access: RouterAccess;
  /** The platform's public base URL: its host is let through the walled garden, and DHCP option 114 names its portal. */
  portalUrl: string;
  /** Hosts of the configured payment gateway's pages (paymentHosts). */
  paymentHosts: readonly string[];
  /** The name the hotspot answers on for its own pages (login, status). */
  dnsName: string;
  /**
   * The password of MAC logins (`mac-auth-password`): the API's RADIUS_MAC_AUTH_PASSWORD, which
   * FreeRADIUS checks PAP against (functions/radius/settings.ts). Not a secret.
   */
  macAuthPassword: string;
}

/**
 * A RouterOS string literal. Every value goes through here, so a crafted NAS id or secret stays
 * one value: `"`, `\`, `$` (variable) and `?` are escaped, control characters refused.
 */
export function ros(value: string): string {
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    throw new UsageError('values must not contain control characters');
  return `"${value.replace(/[\\"$?]/g, (c) => `\\${c}`)}"`;
}

/** A PEM as a RouterOS string literal: its line breaks as `\n`, nothing else but base64 and headers. */
function rosPem(pem: string): string {
  const lines = pem.trim().split('\n');
  if (!lines.every((l) => /^(-----(BEGIN|END) [A-Z ]+-----|[A-Za-z0-9+/=]{1,76})$/.test(l)))
    throw new UsageError('not a PEM');
  return `"${lines.join('\\n')}\\n"`;
}

function check(options: RouterScriptOptions): { portalHost: string; portal: URL } {
  if (!isNasIdShape(options.nasId)) throw new UsageError('--nas-id must be a NAS id (access_...)');
  if (!isIP(options.radiusHost)) throw new UsageError('--radius-host must be an IP address');
  if (options.routerOs !== 6 && options.routerOs !== 7) throw new UsageError('--routeros must be 6 or 7');
  if (options.routerOs === 6 && options.access.transport === 'radsec')
    throw new UsageError('RouterOS 6 has no RadSec: register a UDP router (--source-ip) for it');
  if (options.access.transport === 'udp') {
    const s = options.access.secret;
    if (s.length < 12 || s.length > 128 || /[^\x21-\x7e]/.test(s))
      throw new UsageError('the secret must be 12 to 128 printable ASCII characters, without spaces');
  }
  let portal: URL;
  try {
    portal = new URL(options.portalUrl);
  } catch {
    throw new UsageError('--portal-url must be an absolute URL');
  }
  if (portal.protocol !== 'https:' && portal.protocol !== 'http:')
    throw new UsageError('--portal-url must be http(s)');
  if (!/^[a-z0-9.-]{1,253}$/i.test(options.dnsName)) throw new UsageError('--dns-name must be a host name');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(options.macAuthPassword))
    throw new UsageError('RADIUS_MAC_AUTH_PASSWORD must be 1 to 64 of A-Z a-z 0-9 . _ -');
  for (const h of options.paymentHosts)
    if (!/^(\*\.)?[a-z0-9.-]{1,253}$/i.test(h)) throw new UsageError(`not a host name: ${h}`);
  return { portalHost: portal.hostname, portal };
}

/** The RADIUS client lines: RadSec with the router's certificate (v7), or UDP with its own secret. */
function radiusLines(o: RouterScriptOptions, tag: string): string[] {
  const a = o.access;
  if (a.transport === 'udp')
    return [
      `# RADIUS over UDP with this router's own secret (router ${a.routerId}). The platform knows the`,
      '# router by the public address its packets come from: the one it was registered with.',
      `/radius add service=hotspot address=${ros(o.radiusHost)} secret=${ros(a.secret)} authentication-port=1812 accounting-port=1813 timeout=3s comment=${tag}`,
    ];
  const file = (name: string) => ros(`${a.routerId}-${name}`);
  return [
    `# RadSec (RADIUS over TLS, RFC 6614): this router's client certificate (CN ${a.routerId}), issued by`,
    "# the platform, and the platform CA that signed it and the RADIUS front's certificate.",
    `/file add name=${file('ca.crt')} contents=${rosPem(a.caPem)}`,
    `/file add name=${file('cert.crt')} contents=${rosPem(a.certificatePem)}`,
    `/file add name=${file('key.pem')} contents=${rosPem(a.privateKeyPem)}`,
    ':delay 2s',
    `/certificate import file-name=${file('ca.crt')} passphrase="" name=${file('ca')}`,
    `/certificate import file-name=${file('cert.crt')} passphrase="" name=${ros(a.routerId)}`,
    `/certificate import file-name=${file('key.pem')} passphrase="" name=${ros(a.routerId)}`,
    `/file remove [find name=${file('key.pem')}]`,
    `/radius add service=hotspot address=${ros(o.radiusHost)} protocol=radsec certificate=${ros(a.routerId)} secret="radsec" timeout=3s comment=${tag}`,
  ];
}

/** The RouterOS script that makes one router a hotspot of the platform. */
export function routerOsScript(options: RouterScriptOptions): string {
  const { portalHost, portal } = check(options);
  const tag = ros('hotspot-platform');
  const gardenHosts = [portalHost, ...options.paymentHosts];
  const portalPage = new URL(`/portal/${options.nasId}`, portal).href;
  return [
    `# Hotspot platform: NAS ${options.nasId}, RouterOS ${options.routerOs}. Paste into a RouterOS terminal.`,
    '# The identity is the NAS-Identifier the router sends to RADIUS, and the hotspot login page',
    '# (hotspot/login.html) sends it to the portal as the hotspot.',
    `/system identity set name=${ros(options.nasId)}`,
    ...radiusLines(options, tag),
    '# Disconnect and CoA from the platform (RFC 5176).',
    '/radius incoming set accept=yes port=3799',
    '# MAC login: a device its subscriber asked the portal to remember is let in by its MAC while its',
    '# code is valid (the platform decides); any other device gets the login page as before.',
    `/ip hotspot profile set [find default=yes] use-radius=yes radius-interim-update=5m login-by=http-chap,http-pap,mac mac-auth-mode=mac-as-username mac-auth-password=${ros(options.macAuthPassword)} dns-name=${ros(options.dnsName)} html-directory=hotspot`,
    '# Before login, a subscriber may reach the portal and the payment pages only.',
    ...gardenHosts.map((h) => `/ip hotspot walled-garden add dst-host=${ros(h)} comment=${tag}`),
    // HTTPS is not seen by the walled garden's HTTP proxy: names without a wildcard also go to
    // the IP walled garden, which the router resolves.
    ...gardenHosts
      .filter((h) => !h.includes('*'))
      .map((h) => `/ip hotspot walled-garden ip add action=accept dst-host=${ros(h)} comment=${tag}`),
    '# RFC 8910: DHCP option 114 tells phones where the captive portal is (RFC 8908 API).',
    `/ip dhcp-server option add name="captive-portal" code=114 value=${ros(`'${portalPage}'`)}`,
    '/ip dhcp-server network set [find] dhcp-option=captive-portal',
    '# Then upload the login page: npm run --silent admin -- mikrotik login-html --portal-url <url> > login.html',
    '# and copy it over hotspot/login.html (Files in WinBox, or scp login.html admin@router:hotspot/).',
    '',
  ].join('\n');
}

const LOGIN_HTML = new URL('../../deploy/mikrotik/login.html', import.meta.url);

/** deploy/mikrotik/login.html with the portal's base URL written in. */
export function loginHtml(portalUrl: string): string {
  let url: URL;
  try {
    url = new URL(portalUrl);
  } catch {
    throw new UsageError('--portal-url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError('--portal-url must be http(s)');
  // An attribute value: the URL parser already percent-encoded quotes and angle brackets.
  const base = url.href.replace(/\/$/, '').replace(/&/g, '&amp;');
  return readFileSync(LOGIN_HTML, 'utf8').replaceAll('PORTAL_URL', base);
}

const USAGE =
  'mikrotik script (--nas-id <id> | --router-id <id>) [--routeros 7|6] [--source-ip <ip> (UDP, RouterOS 6)] [--radius-host <ip>] [--portal-url <url>] [--dns-name <name>] | mikrotik login-html [--portal-url <url>]';

/**
 * `mikrotik script`: prints the one-paste RouterOS script of a router, with credentials issued
 * for it now (they are shown nowhere else): with `--nas-id`, a new router is registered for that
 * hotspot (RouterOS 7: RadSec; 6, or `--source-ip` on 7: UDP bound to that address); with
 * `--router-id`, that router gets new credentials (its previous certificate or secret stops
 * working). Defaults: RADIUS_HOST and PUBLIC_BASE_URL from the environment; the walled garden
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
  const c = issued.credentials;
  const id = issued.router.router_id;
  process.stderr.write(
    `Router ${id} (${c.transport}) for ${issued.router.nas_ids.join(', ')}: its credentials are in this script only.\n`,
  );
  const access: RouterAccess =
    c.transport === 'udp'
      ? { transport: 'udp', routerId: id, secret: c.secret }
      : {
          transport: 'radsec',
          routerId: id,
          certificatePem: c.certificate_pem,
          privateKeyPem: c.private_key_pem,
          caPem: c.ca_pem,
        };
  return { nasId: issued.router.nas_ids[0] as string, access };
}
