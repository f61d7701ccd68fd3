import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isNasIdShape } from '../../functions/network/naming.js';
import { UsageError } from './context.js';

/**
 * The payment aggregators' pages a subscriber must reach before being logged in: the hotspot's
 * walled garden lets them through. One list, read by the router script and named in the docs.
 */
export const PAYMENT_PAGE_HOSTS: readonly string[] = [
  '*.cinetpay.com',
  '*.fedapay.com',
  'checkout.wave.com',
  'pay.wave.com',
];

export interface RouterScriptOptions {
  nasId: string;
  /** The FreeRADIUS server the router asks: an IP address (RouterOS takes no name there). */
  radiusHost: string;
  secret: string;
  /** The platform's public base URL; its host is let through the walled garden. */
  portalUrl: string;
  /** The name the hotspot answers on for its own pages (login, status). */
  dnsName: string;
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

function check(options: RouterScriptOptions): { portalHost: string } {
  if (!isNasIdShape(options.nasId)) throw new UsageError('--nas-id must be a NAS id (access_...)');
  if (!isIP(options.radiusHost)) throw new UsageError('--radius-host must be an IP address');
  if (options.secret.length < 12 || options.secret.length > 128 || /[^\x21-\x7e]/.test(options.secret))
    throw new UsageError('--secret must be 12 to 128 printable ASCII characters, without spaces');
  let portal: URL;
  try {
    portal = new URL(options.portalUrl);
  } catch {
    throw new UsageError('--portal-url must be an absolute URL');
  }
  if (portal.protocol !== 'https:' && portal.protocol !== 'http:')
    throw new UsageError('--portal-url must be http(s)');
  if (!/^[a-z0-9.-]{1,253}$/i.test(options.dnsName)) throw new UsageError('--dns-name must be a host name');
  return { portalHost: portal.hostname };
}

/** The RouterOS script that makes one router a hotspot of the platform. */
export function routerOsScript(options: RouterScriptOptions): string {
  const { portalHost } = check(options);
  const tag = ros('hotspot-platform');
  const gardenHosts = [portalHost, ...PAYMENT_PAGE_HOSTS];
  return [
    `# Hotspot platform: NAS ${options.nasId}. Paste into a RouterOS terminal (v6.48+ or v7).`,
    '# The identity is the NAS-Identifier the router sends to RADIUS, and the hotspot login page',
    '# (hotspot/login.html) sends it to the portal as the hotspot.',
    `/system identity set name=${ros(options.nasId)}`,
    `/radius add service=hotspot address=${ros(options.radiusHost)} secret=${ros(options.secret)} authentication-port=1812 accounting-port=1813 comment=${tag}`,
    '# Disconnect and CoA from the platform (RFC 5176).',
    '/radius incoming set accept=yes port=3799',
    `/ip hotspot profile set [find default=yes] use-radius=yes radius-interim-update=5m login-by=http-chap,http-pap dns-name=${ros(options.dnsName)} html-directory=hotspot`,
    '# Before login, a subscriber may reach the portal and the payment pages only.',
    ...gardenHosts.map((h) => `/ip hotspot walled-garden add dst-host=${ros(h)} comment=${tag}`),
    // HTTPS is not seen by the walled garden's HTTP proxy: names without a wildcard also go to
    // the IP walled garden, which the router resolves.
    ...gardenHosts
      .filter((h) => !h.includes('*'))
      .map((h) => `/ip hotspot walled-garden ip add action=accept dst-host=${ros(h)} comment=${tag}`),
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
  'mikrotik script --nas-id <id> [--radius-host <ip>] [--portal-url <url>] [--secret <s>] [--dns-name <name>] | mikrotik login-html [--portal-url <url>]';

/**
 * `mikrotik script ...`: prints the RouterOS script of one NAS. Defaults: RADIUS_HOST,
 * PUBLIC_BASE_URL and RADIUS_SECRET from the environment; without a secret, a new random one is
 * printed, to be set as FreeRADIUS's RADIUS_SECRET too. `mikrotik login-html`: the login page.
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
  const nasId = flag('nas-id');
  const radiusHost = flag('radius-host', 'RADIUS_HOST');
  if (!nasId || !radiusHost || !portalUrl)
    throw new UsageError(
      `--nas-id, --radius-host (or RADIUS_HOST) and --portal-url (or PUBLIC_BASE_URL) are required\n${USAGE}`,
    );
  let secret = flag('secret', 'RADIUS_SECRET');
  if (!secret) {
    secret = randomBytes(18).toString('base64url');
    process.stderr.write(`No --secret: generated ${secret} (set it as FreeRADIUS's RADIUS_SECRET too)\n`);
  }
  process.stdout.write(
    routerOsScript({ nasId, radiusHost, secret, portalUrl, dnsName: flag('dns-name') ?? 'login.wifi' }),
  );
}
