import { isIP } from 'node:net';

/**
 * What a reseller may put on its captive portal (DESIGN §4). The portal is served to every
 * subscriber of the hotspot, so anything that could run script, load another site's content or
 * reach the operator's own network is refused.
 */

// Names that only resolve inside a network (RFC 6761, 6762, 8375 and common practice).
const PRIVATE_HOST =
  /^(localhost|.*\.(localhost|local|localdomain|internal|intranet|lan|home|home\.arpa|corp|private|test|invalid|arpa))$/i;
// Public DNS names that answer with the IP written into them (127.0.0.1.nip.io, 10-0-0-1.sslip.io).
const IP_ECHO_DNS = /(^|\.)(nip\.io|sslip\.io|xip\.io|localtest\.me|lvh\.me|vcap\.me)$/i;

/** Null when the URL is acceptable for a logo, else why not. */
export function logoUrlProblem(value: string): string | null {
  if (value.length > 2048) return 'must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not carry credentials';
  // The URL parser already rewrote 0x7f.1, 2130706433 and the like as dotted IPv4.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (isIP(host) || /^[\d.]+$/.test(host) || /^0x[0-9a-f]+$/i.test(host))
    return 'must name a host, not an IP address';
  if (!host.includes('.') || PRIVATE_HOST.test(host) || IP_ECHO_DNS.test(host))
    return 'must be a public host name';
  return null;
}

/** Undoes CSS escapes (`\\75 rl(` is `url(`) and drops comments, so checks see what a browser sees. */
function canonicalCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, hex: string) => {
      // As CSS Syntax §4.3.7: zero, a surrogate or beyond Unicode is U+FFFD.
      const code = Number.parseInt(hex, 16);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return String.fromCodePoint(valid ? code : 0xfffd);
    })
    .replace(/\\(.)/g, '$1')
    .replace(/\s+/g, '')
    .toLowerCase();
}

export const MAX_CSS_BYTES = 10 * 1024;

/** Null when the CSS is acceptable, else why not. */
export function customCssProblem(css: string): string | null {
  if (Buffer.byteLength(css, 'utf8') > MAX_CSS_BYTES) return 'must be at most 10 KB';
  if (css.includes('<')) return 'must not contain <';
  const c = canonicalCss(css);
  for (const [needle, why] of [
    ['@import', 'must not use @import'],
    ['expression(', 'must not use expression()'],
    ['javascript:', 'must not use javascript: URLs'],
    ['vbscript:', 'must not use vbscript: URLs'],
    ['behavior:', 'must not use behavior'],
    ['-moz-binding', 'must not use -moz-binding'],
    // These load an image from a URL written as a plain string, without url().
    ['image-set(', 'must not use image-set()'],
    ['image(', 'must not use image()'],
    ['src(', 'must not use src()'],
    ['</', 'must not contain </'],
  ] as const) {
    if (c.includes(needle)) return why;
  }
  // url() may only embed an image inline: a URL to any host would let the portal call out.
  for (const m of c.matchAll(/url\(([^)]*)\)?/g)) {
    const target = (m[1] ?? '').replace(/^['"]|['"]$/g, '');
    if (!/^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=]*$/i.test(target)) {
      return 'url() may only hold a data:image (png, jpeg, gif, webp) URI';
    }
  }
  return null;
}
