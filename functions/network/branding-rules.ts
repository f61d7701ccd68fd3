import { isIP } from 'node:net';

/**
 * What a reseller may put on its captive portal (DESIGN §4). The portal is served to every
 * subscriber of the hotspot, so anything that could run script, load another site's content or
 * reach the operator's own network is refused.
 */

const PRIVATE_HOST =
  /^(localhost|.*\.localhost|.*\.local|.*\.internal|.*\.lan|.*\.home|.*\.home\.arpa|.*\.corp|.*\.intranet)$/i;

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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || /^\d+$/.test(host) || /^0x[0-9a-f]+$/i.test(host))
    return 'must name a host, not an IP address';
  if (!host.includes('.') || PRIVATE_HOST.test(host)) return 'must be a public host name';
  return null;
}

/** Undoes CSS escapes (`\\75 rl(` is `url(`) and drops comments, so checks see what a browser sees. */
function canonicalCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_m, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16) || 0xfffd),
    )
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
