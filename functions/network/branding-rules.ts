// What a reseller may put on its captive portal: a logo URL's rules and the custom CSS's size.

import { isIP } from 'node:net';

/**
 * What a reseller may put on its captive portal. The portal is served to every subscriber of the
 * hotspot, so anything that could run script, load another site's content or reach the
 * operator's own network is refused.
 */

// Names that only resolve inside a network (RFC 6761, 6762, 8375 and common practice).
const PRIVATE_HOST =
  /^(localhost|.*\.(localhost|local|localdomain|internal|intranet|lan|home|home\.arpa|corp|private|test|invalid|arpa))$/i;
// Public DNS names that answer with the IP written into them (127.0.0.1.nip.io, 10-0-0-1.sslip.io).
const IP_ECHO_DNS = /(^|\.)(nip\.io|sslip\.io|xip\.io|localtest\.me|lvh\.me|vcap\.me)$/i;
// Letters, digits and hyphens per label, a last label starting with a letter (so never an IPv4 in
// any of its spellings: 2130706433, 0x7f.1, 127.1).
const DNS_NAME = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.[a-z][a-z0-9-]{0,62}(?<!-)$/i;

/**
 * Null when the URL is acceptable for a logo, else why not. Checked on the text as written as
 * well as on the parsed URL: parsers disagree on `\`, `@` and control characters
 * (`https://evil.example\@169.254.169.254/` is evil.example to a browser and 169.254.169.254 to
 * some HTTP clients), so any input where they could disagree is refused.
 */
export function logoUrlProblem(value: string): string | null {
  if (value.length > 2048) return 'must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const control = (c: string) =>
    c.charCodeAt(0) <= 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f);
  if ([...value].some(control)) return 'must not contain spaces or control characters';
  if (value.includes('\\')) return 'must not contain a backslash';
  if (url.protocol !== 'https:' || !/^https:\/\//i.test(value)) return 'must use https://';
  // The authority as any parser would cut it: up to the first /, ? or #.
  const authority = value.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@') || url.username || url.password) return 'must not carry credentials';
  // The URL parser already rewrote 0x7f.1, 2130706433 and the like as dotted IPv4.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (isIP(host) || /^[\d.]+$/.test(host) || /^0x[0-9a-f]+$/i.test(host) || url.hostname.startsWith('['))
    return 'must name a host, not an IP address';
  if (url.port !== '' || !/^[^:]+(:443)?$/.test(authority)) return 'must not name a port other than 443';
  if (!DNS_NAME.test(host) || PRIVATE_HOST.test(host) || IP_ECHO_DNS.test(host))
    return 'must be a public host name';
  if (authority.replace(/:443$/, '').toLowerCase().replace(/\.+$/, '') !== host.toLowerCase())
    return 'must name its host in plain ASCII (punycode for international names)';
  return null;
}

/** The logo URL as the portal writes it (serialised by the URL parser); undefined when refused. */
export function normalizedLogoUrl(value: string): string | undefined {
  return logoUrlProblem(value) === null ? new URL(value).href : undefined;
}

/** Custom CSS is at most this many bytes (UTF-8); its content rules are in custom-css.ts. */
export const MAX_CSS_BYTES = 10 * 1024;
