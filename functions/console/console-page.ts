// GET /console: The resellers' and operators' console (HTML shell; the screens call this API)

import { createHash } from 'node:crypto';
import { endpoint } from '../core/http.js';
import { etagMatches } from '../network/branding.js';
import { CONSOLE_PRELOADS, CONSOLE_SCRIPT, CONSOLE_STYLE } from './assets.generated.js';

/**
 * The console's policy: scripts, styles, images and API calls from this origin only (no inline
 * script, no inline <style>, no third-party host), the portal framed for its preview, and the
 * console itself never framed by anyone.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

// The chunks the entry script imports statically: fetched alongside it, not one round trip later.
// The screens' own chunks are not: the login page does not fetch what only the screens use.
const preloads = CONSOLE_PRELOADS.map(
  (name) => `<link rel="modulepreload" href="/console/assets/${name}">`,
).join('\n');

/** The shell: the screens are drawn by the script; the text below is for browsers without it. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="fr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="theme-color" content="#0f5f8c">
<link rel="icon" href="data:,">
<title>Console revendeur</title>
<link rel="stylesheet" href="/console/assets/${CONSOLE_STYLE}">
<script type="module" src="/console/assets/${CONSOLE_SCRIPT}"></script>
${preloads}
</head><body><div id="app"><p class="noscript">Chargement de la console… (JavaScript est nécessaire.)</p></div></body></html>
`;

const etag = `"${createHash('sha256').update(CONSOLE_HTML).digest('base64url').slice(0, 16)}"`;

/**
 * The console's page: small, revalidated on every visit (a 304 when unchanged), so a new build's
 * asset names are seen at once while the assets themselves come from the browser's cache.
 */
export const handler = endpoint(
  'GET /console',
  {
    response: { status: 200, contentType: 'text/html' },
    also: [{ status: 304, description: 'Not modified (If-None-Match)' }],
  },
  async ({ headers }) => {
    const common = {
      'cache-control': 'no-cache',
      etag,
      'content-security-policy': CONSOLE_CSP,
      'referrer-policy': 'same-origin',
      'x-frame-options': 'DENY',
    };
    if (etagMatches(headers['if-none-match'], etag)) return { status: 304, raw: '', headers: common };
    return {
      status: 200,
      raw: CONSOLE_HTML,
      headers: { ...common, 'content-type': 'text/html; charset=utf-8' },
    };
  },
);
