// The RouterOS script that makes one MikroTik router a hotspot of the platform.

import { isIP } from 'node:net';
import { isNasIdShape } from '../network/naming.js';
import type { Credentials } from './routers.js';

/**
 * The RouterOS script that makes one MikroTik router a hotspot of the platform, written once
 * and used by the operator CLI (`npm run admin -- mikrotik script`) and by the API, which hands
 * it out with a router's credentials (the only answer that holds them: the secret or the key
 * is not kept in clear, so a script downloaded again comes with new credentials). On RouterOS 7
 * it is complete: it writes the hotspot's login page too.
 */

/** A value the script cannot hold; the CLI shows it as a usage error, the API leaves the script out. */
export class ScriptError extends Error {}

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
      throw new ScriptError('AGGREGATOR_BASE_URL must be an absolute URL');
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
  /**
   * The RADIUS front the router asks: its IP addresses, comma-separated (the stack's
   * `RadiusAddresses`, one per AZ; RouterOS takes no name there). Each is added, in order: the
   * router asks the next when one does not answer.
   */
  radiusHost: string;
  /**
   * Where the platform's Disconnect and CoA requests (RFC 5176) come from, comma-separated (the
   * stack's `RadiusEgressAddresses`). RouterOS accepts them only from a /radius entry's address,
   * so a UDP router lists these too. Empty: the front's own addresses only.
   */
  disconnectFrom?: string;
  /**
   * The reseller's in-country edge (docs/outage.md): listed first, before the front's addresses.
   * It forwards while the region answers and decides itself when the link is cut, so a cut costs
   * a login no wait; the front is asked only when the edge's box does not answer. For a UDP
   * router (the edge knows it by its secret, from its replica).
   */
  edgeHost?: string;
  /**
   * The same for a RadSec router: the reseller's edge when it holds a server certificate of the
   * router CA (`edges tls`), which the router checks it against as it checks the front.
   */
  radsecEdgeHost?: string;
  access: RouterAccess;
  /** The platform's public base URL: its host is let through the walled garden, and DHCP option 114 names its captive API. */
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
function ros(value: string): string {
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    throw new ScriptError('values must not contain control characters');
  return `"${value.replace(/[\\"$?]/g, (c) => `\\${c}`)}"`;
}

/** Text of several lines as one RouterOS string literal: escaped as `ros` does, line breaks as `\n`. */
function rosLines(text: string): string {
  return text
    .split('\n')
    .map((line) => ros(line).slice(1, -1))
    .join('\\n')
    .replace(/^/, '"')
    .replace(/$/, '"');
}

/**
 * The hotspot's login page (deploy/mikrotik/login.html without its comment): it sends the
 * subscriber to the portal with what the router knows, and the portal posts the code back to
 * the router's login URL. The setup script writes it, so no file is uploaded by hand.
 */
export function hotspotLoginPage(portalUrl: string): string {
  // An attribute value and a script string: the URL parser already percent-encoded double quotes
  // and angle brackets; a single quote is encoded too, so it cannot end the script's string.
  const base = new URL(portalUrl).href.replace(/\/$/, '').replace(/&/g, '&amp;').replace(/'/g, '%27');
  return [
    '<!doctype html>',
    '<html lang="fr">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Wi-Fi</title>',
    '<style>body{font:16px/1.4 sans-serif;margin:1em auto;max-width:26em;padding:0 1em}input,button{font:inherit;padding:.6em;width:100%;box-sizing:border-box;margin:.3em 0}</style>',
    '</head>',
    '<body>',
    `<form name="portal" action="${base}/portal/$(identity)" method="get">`,
    '<input type="hidden" name="link-login-only" value="$(link-login-only)">',
    '<input type="hidden" name="link-orig" value="$(link-orig)">',
    '<input type="hidden" name="mac" value="$(mac)">',
    '$(if chap-id)',
    '<input type="hidden" name="chap-id" value="$(chap-id)">',
    '<input type="hidden" name="chap-challenge" value="$(chap-challenge)">',
    '$(endif)',
    '$(if error)',
    '<input type="hidden" name="error" value="$(error)">',
    '$(endif)',
    '<noscript><button type="submit">Continuer / Continue</button></noscript>',
    '</form>',
    '<main id="offline" hidden>',
    '<h1>Wi-Fi</h1>',
    '<p>Réseau national coupé : seuls les codes déjà achetés fonctionnent.</p>',
    '<p lang="en">National network cut: only codes already bought work.</p>',
    '$(if error)',
    '<p role="alert">$(error)</p>',
    '$(endif)',
    '<form name="login" action="$(link-login-only)" method="post">',
    '<input type="hidden" name="username">',
    '<input type="hidden" name="password">',
    '<input type="hidden" name="dst" value="$(link-orig)">',
    '<input type="hidden" name="popup" value="false">',
    '<label for="code">Votre code / Your code</label>',
    '<input id="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required>',
    '<button type="submit">Se connecter / Log in</button>',
    '</form>',
    '</main>',
    '<script src="/md5.js"></script>',
    '<script>',
    "const hotspotCode = (value) => value.toUpperCase().replace(/[\\s-]/g, '');",
    '// The CHAP id and challenge come as octal escapes (\\ooo): the bytes hexMD5 hashes.',
    'const hotspotBytes = (text) => text.replace(/\\\\([0-7]{3})/g, (_m, octal) => String.fromCharCode(parseInt(octal, 8)));',
    'const hotspotPage = () => {',
    '  const portal = document.portal;',
    '  const login = document.login;',
    "  const code = document.getElementById('code');",
    "  const chapId = portal.elements['chap-id'];",
    "  const chapChallenge = portal.elements['chap-challenge'];",
    '  let done = false;',
    '  const offline = () => {',
    '    if (done) return;',
    '    done = true;',
    "    document.getElementById('offline').hidden = false;",
    '    code.focus();',
    '  };',
    '  const online = () => {',
    '    if (done) return;',
    '    done = true;',
    '    portal.submit();',
    '  };',
    '  login.onsubmit = () => {',
    '    const typed = hotspotCode(code.value);',
    '    login.username.value = typed;',
    '    login.password.value = chapId',
    '      ? hexMD5(hotspotBytes(chapId.value) + typed + hotspotBytes(chapChallenge.value))',
    '      : typed;',
    '    code.disabled = true;',
    '    return true;',
    '  };',
    '  if (!window.fetch) return online();',
    '  setTimeout(offline, 4000);',
    `  fetch('${base}/api/v1/monitoring/status', { mode: 'no-cors', cache: 'no-store' }).then(online, offline);`,
    '};',
    'hotspotPage();',
    '</script>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A PEM as a RouterOS string literal: its line breaks as `\n`, nothing else but base64 and headers. */
function rosPem(pem: string): string {
  const lines = pem.trim().split('\n');
  if (!lines.every((l) => /^(-----(BEGIN|END) [A-Z ]+-----|[A-Za-z0-9+/=]{1,76})$/.test(l)))
    throw new ScriptError('not a PEM');
  return `"${lines.join('\\n')}\\n"`;
}

function check(options: RouterScriptOptions): { portalHost: string; portal: URL } {
  if (!isNasIdShape(options.nasId)) throw new ScriptError('--nas-id must be a NAS id (access_...)');
  if (!addresses(options.radiusHost).length || !addresses(options.radiusHost).every((a) => isIP(a)))
    throw new ScriptError('--radius-host must be IP addresses, comma-separated');
  if (!addresses(options.disconnectFrom).every((a) => isIP(a)))
    throw new ScriptError('--disconnect-from must be IP addresses, comma-separated');
  if (![...addresses(options.edgeHost), ...addresses(options.radsecEdgeHost)].every((a) => isIP(a)))
    throw new ScriptError('--edge-host must be IP addresses, comma-separated');
  if (options.routerOs !== 6 && options.routerOs !== 7) throw new ScriptError('--routeros must be 6 or 7');
  if (options.routerOs === 6 && options.access.transport === 'radsec')
    throw new ScriptError('RouterOS 6 has no RadSec: register a UDP router (--source-ip) for it');
  if (options.access.transport === 'udp') {
    const s = options.access.secret;
    if (s.length < 12 || s.length > 128 || /[^\x21-\x7e]/.test(s))
      throw new ScriptError('the secret must be 12 to 128 printable ASCII characters, without spaces');
  }
  let portal: URL;
  try {
    portal = new URL(options.portalUrl);
  } catch {
    throw new ScriptError('--portal-url must be an absolute URL');
  }
  if (portal.protocol !== 'https:' && portal.protocol !== 'http:')
    throw new ScriptError('--portal-url must be http(s)');
  if (!/^[a-z0-9.-]{1,253}$/i.test(options.dnsName)) throw new ScriptError('--dns-name must be a host name');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(options.macAuthPassword))
    throw new ScriptError('RADIUS_MAC_AUTH_PASSWORD must be 1 to 64 of A-Z a-z 0-9 . _ -');
  for (const h of options.paymentHosts)
    if (!/^(\*\.)?[a-z0-9.-]{1,253}$/i.test(h)) throw new ScriptError(`not a host name: ${h}`);
  return { portalHost: portal.hostname, portal };
}

/** A comma-separated list of addresses, each once, in order. */
const addresses = (list: string | undefined): string[] => [
  ...new Set(
    (list ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  ),
];

/** The RADIUS client lines: RadSec with the router's certificate (v7), or UDP with its own secret. */
function radiusLines(o: RouterScriptOptions, tag: string): string[] {
  const a = o.access;
  const hosts = addresses(o.radiusHost);
  if (a.transport === 'udp') {
    const udp = (host: string) =>
      `/radius add service=hotspot address=${ros(host)} secret=${ros(a.secret)} authentication-port=1812 accounting-port=1813 timeout=3s comment=${tag}`;
    const edges = addresses(o.edgeHost).filter((e) => !hosts.includes(e));
    const sources = addresses(o.disconnectFrom).filter((e) => !hosts.includes(e) && !edges.includes(e));
    return [
      `# RADIUS over UDP with this router's own secret (router ${a.routerId}). The platform knows the`,
      '# router by the public address its packets come from: the one it was registered with.',
      ...(edges.length
        ? [
            "# The reseller's in-country edge first: it passes each request to the platform while the",
            '# international link is up and answers itself when it is cut (codes sold before the cut, the',
            '# accounting kept until the link is back), so a cut adds no wait. It answers within 2 s.',
            ...edges.map(udp),
          ]
        : []),
      edges.length
        ? "# The platform's front (one address per zone): asked when the edge does not answer (its box is down)."
        : "# The platform's front (one address per zone): the second is asked when the first does not answer.",
      ...hosts.map(udp),
      ...(sources.length
        ? [
            "# The addresses the platform's Disconnect/CoA requests leave from: RouterOS accepts them only",
            '# from a listed server. Listed last, they are never asked first.',
            ...sources.map(udp),
          ]
        : []),
    ];
  }
  const file = (name: string) => ros(`${a.routerId}-${name}`);
  // radsec-timeout (3.3 s) is left at its default: a RouterOS 7 release before it refuses the name.
  const radsec = (host: string) =>
    `/radius add service=hotspot address=${ros(host)} protocol=radsec certificate=${ros(a.routerId)} secret="radsec" timeout=3s comment=${tag}`;
  const radsecEdges = addresses(o.radsecEdgeHost).filter((e) => !hosts.includes(e));
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
    ...(radsecEdges.length
      ? [
          "# The reseller's in-country edge first (it holds a certificate of the same CA): it passes each",
          '# request to the platform while the international link is up and answers itself when it is cut.',
          ...radsecEdges.map(radsec),
          "# The platform's front (one address per zone): asked when the edge does not answer (its box is down).",
        ]
      : [
          "# Both of the front's addresses (one per zone): the second is asked when the first does not answer.",
        ]),
    ...hosts.map(radsec),
  ];
}

/** The RouterOS script that makes one router a hotspot of the platform. */
export function routerOsScript(options: RouterScriptOptions): string {
  const { portalHost, portal } = check(options);
  const tag = ros('hotspot-platform');
  const gardenHosts = [portalHost, ...options.paymentHosts];
  // RFC 8910's option names the RFC 8908 API (JSON), never the HTML page a phone cannot read as one.
  const captiveApi = new URL(`/api/v1/captive/${options.nasId}`, portal).href;
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
    `/ip dhcp-server option add name="captive-portal" code=114 value=${ros(`'${captiveApi}'`)}`,
    '/ip dhcp-server network set [find] dhcp-option=captive-portal',
    ...(options.routerOs === 7
      ? [
          "# The login page, which sends subscribers to the platform's portal (replaces hotspot/login.html).",
          '/file remove [find name="hotspot/login.html"]',
          `/file add name="hotspot/login.html" contents=${rosLines(hotspotLoginPage(options.portalUrl))}`,
        ]
      : [
          '# RouterOS 6 cannot write a file from a script: upload the login page,',
          '# npm run --silent admin -- mikrotik login-html --portal-url <url> > login.html, over',
          '# hotspot/login.html (Files in WinBox, or scp login.html admin@router:hotspot/).',
        ]),
    '',
  ].join('\n');
}

/** What the script needs of a router's new credentials (as `register` and `rotate` answer them). */
export interface IssuedRouter {
  router: { router_id: string; nas_ids: string[]; reseller_id?: string };
  credentials: Credentials;
}

/** The script's access lines from credentials just issued. */
export function accessOf(issued: IssuedRouter): RouterAccess {
  const c = issued.credentials;
  const routerId = issued.router.router_id;
  return c.transport === 'udp'
    ? { transport: 'udp', routerId, secret: c.secret }
    : {
        transport: 'radsec',
        routerId,
        certificatePem: c.certificate_pem,
        privateKeyPem: c.private_key_pem,
        caPem: c.ca_pem,
      };
}
