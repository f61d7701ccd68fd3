// What the hotspot router tells the portal when it sends a subscriber there, and how the portal logs in through it.

import { md5Hex } from './md5.js';

/**
 * What the hotspot router tells the portal when it sends a subscriber there, and how the portal
 * logs the device in with an access code. Pure: the page runs it in the browser and the page's
 * Lambda runs it to allow the router's login URL in the Content-Security-Policy.
 *
 * - MikroTik (our deploy/mikrotik/login.html forwards its variables): `link-login-only`,
 *   `link-orig`, `mac`, `chap-id`, `chap-challenge`, `error`. The page POSTs `username`,
 *   `password`, `dst`, `popup` to `link-login-only`; with CHAP the password is
 *   MD5(chap-id + code + chap-challenge) in hex, as MikroTik's own login.html computes it.
 * - CoovaChilli (its UAM redirect): `uamip`, `uamport`, `challenge`, `userurl`, `res`, `mac`.
 *   The page goes to `http://uamip:uamport/logon?username=..&response=..&userurl=..` with the
 *   CHAP response MD5(0x00 + code + challenge), as chilli's JSON interface does. This holds when
 *   chilli has no `uamsecret` (with one, only chilli's own server-side page could answer).
 */
export type RouterParams =
  | {
      kind: 'mikrotik';
      /** `link-login-only`: where the login form is posted. */
      loginUrl: string;
      /** `link-orig`: where the subscriber was going. */
      dst?: string;
      chapId?: string;
      chapChallenge?: string;
      mac?: string;
      error?: string;
    }
  | {
      kind: 'coova';
      /** `http://uamip:uamport`. */
      loginUrl: string;
      dst?: string;
      challenge?: string;
      mac?: string;
      error?: string;
    };

/** The query parameters a router's redirect carries, all of them, for the page to keep. */
export const ROUTER_PARAM_NAMES = [
  'link-login-only',
  'link-orig',
  'mac',
  'chap-id',
  'chap-challenge',
  'error',
  'uamip',
  'uamport',
  'challenge',
  'userurl',
  'res',
] as const;

type Query = { get(name: string): string | null };

/** An http(s) URL without credentials, as the URL parser writes it; undefined otherwise. */
export function webUrl(value: string | null | undefined): string | undefined {
  if (!value || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username || url.password) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

const text = (value: string | null, max: number): string | undefined =>
  value && value.length <= max ? value : undefined;

/** What the router sent, or undefined when the page was not opened through a router. */
export function routerParams(query: Query): RouterParams | undefined {
  const error = text(query.get('error'), 300);
  const mac = text(query.get('mac'), 64);
  const mikrotikLogin = webUrl(query.get('link-login-only'));
  if (mikrotikLogin) {
    const dst = webUrl(query.get('link-orig'));
    const chapId = text(query.get('chap-id'), 64);
    const chapChallenge = text(query.get('chap-challenge'), 256);
    return {
      kind: 'mikrotik',
      loginUrl: mikrotikLogin,
      ...(dst ? { dst } : {}),
      ...(chapId && chapChallenge ? { chapId, chapChallenge } : {}),
      ...(mac ? { mac } : {}),
      ...(error ? { error } : {}),
    };
  }
  const uamip = query.get('uamip') ?? '';
  const uamport = Number(query.get('uamport'));
  const ipv4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(uamip);
  if (ipv4 && Number.isInteger(uamport) && uamport > 0 && uamport < 65536) {
    const dst = webUrl(query.get('userurl'));
    const challenge = query.get('challenge') ?? '';
    // Chilli reports a refused login as res=failed (res=notyet is the first visit).
    const refused = query.get('res') === 'failed' ? (error ?? 'login failed') : error;
    return {
      kind: 'coova',
      loginUrl: `http://${uamip}:${uamport}`,
      ...(dst ? { dst } : {}),
      ...(/^[0-9a-f]{32}$/i.test(challenge) ? { challenge: challenge.toLowerCase() } : {}),
      ...(mac ? { mac } : {}),
      ...(refused ? { error: refused } : {}),
    };
  }
  return undefined;
}

/**
 * The router's `error` parameter, as one of a fixed set of sentences: its text is never shown
 * (anyone can craft a portal link with any `error`, and the page must not say what they wrote).
 * MikroTik's own messages (RouterOS hotspot `$(error)`), the platform's RADIUS Reply-Messages
 * (radius/attributes.ts REFUSALS, which MikroTik shows as the error) and Coova's `res=failed`
 * map to a sentence of functions/portal/strings.ts; anything else is the generic one.
 */
export type RouterErrorKey =
  | 'err_router_credentials'
  | 'err_router_retry'
  | 'err_router_unavailable'
  | 'err_unknown_code'
  | 'err_wrong_hotspot'
  | 'err_expired'
  | 'err_data_used'
  | 'err_device_limit'
  | 'err_mac_unknown'
  | 'err_too_many_codes'
  | 'err_router_generic';

const ROUTER_ERRORS: [RegExp, RouterErrorKey][] = [
  [
    /invalid username or password|invalid password|no such user|unknown user|login failed/i,
    'err_router_credentials',
  ],
  [/^code inconnu$/i, 'err_unknown_code'],
  // The hotspot's guess budget (radius/attributes.ts REFUSALS.rate_limited).
  [/^trop d'essais de codes/i, 'err_too_many_codes'],
  // A MAC login that found no remembered device (radius/attributes.ts REFUSALS.mac_unknown): the
  // page shows no error for it (most devices on a MAC-login hotspot are not remembered).
  [/^appareil non reconnu/i, 'err_mac_unknown'],
  [
    /non valable sur ce hotspot|not allowed to log in from this mac|mac address is not yours/i,
    'err_wrong_hotspot',
  ],
  [/^forfait expir|uptime limit|account (is )?expired/i, 'err_expired'],
  [/donn[ée]es [ée]puis|traffic limit/i, 'err_data_used'],
  [/maximal d'appareils|no more sessions are allowed|session limit reached/i, 'err_device_limit'],
  [/radius server is not responding|internal web-server error|no valid profile/i, 'err_router_unavailable'],
  [/already authorizing|did not send challenge response|chap-missing|not logged in/i, 'err_router_retry'],
];

export function routerErrorKey(raw: string): RouterErrorKey {
  for (const [pattern, key] of ROUTER_ERRORS) if (pattern.test(raw)) return key;
  return 'err_router_generic';
}

/** The origin the login form is posted to: the page's `form-action` must allow it. */
export function loginOrigin(params: RouterParams | undefined): string | undefined {
  return params ? new URL(params.loginUrl).origin : undefined;
}

/**
 * The router's parameters when their login URL is on the hotspot's registered origin; else
 * undefined: the page never posts a code to a login URL that a link, not the NAS record, chose.
 */
export const trustedRouter = (
  params: RouterParams | undefined,
  registered: string | undefined,
): RouterParams | undefined =>
  params && registered && loginOrigin(params) === registered ? params : undefined;

/**
 * MikroTik writes `$(chap-id)` and `$(chap-challenge)` as octal escapes (`\357\201...`), for a
 * JavaScript string literal; each escape is one byte. Other characters count as one byte each.
 */
function octalBytes(value: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const escaped = value[i] === '\\' ? /^[0-7]{1,3}/.exec(value.slice(i + 1))?.[0] : undefined;
    if (escaped) {
      out.push(Number.parseInt(escaped, 8) & 0xff);
      i += escaped.length;
    } else out.push(value.charCodeAt(i) & 0xff);
  }
  return Uint8Array.from(out);
}

const ascii = (value: string): Uint8Array => Uint8Array.from(value, (c) => c.charCodeAt(0) & 0xff);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const hexBytes = (hex: string): Uint8Array =>
  Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));

/** MikroTik's `hexMD5(chap-id + password + chap-challenge)`. */
const mikrotikChapPassword = (chapId: string, code: string, chapChallenge: string): string =>
  md5Hex(concat(octalBytes(chapId), ascii(code), octalBytes(chapChallenge)));

/** CoovaChilli's CHAP response: MD5(ident 0 + password + challenge bytes). */
const coovaChapResponse = (code: string, challengeHex: string): string =>
  md5Hex(concat(Uint8Array.of(0), ascii(code), hexBytes(challengeHex)));

export type NasLogin =
  | { method: 'post'; action: string; fields: Record<string, string> }
  | { method: 'get'; url: string };

/** How the browser logs in with a code: a form to post (MikroTik) or a page to open (Coova). */
export function nasLogin(params: RouterParams, code: string): NasLogin | undefined {
  if (params.kind === 'mikrotik') {
    const password =
      params.chapId && params.chapChallenge
        ? mikrotikChapPassword(params.chapId, code, params.chapChallenge)
        : code;
    return {
      method: 'post',
      action: params.loginUrl,
      fields: { username: code, password, dst: params.dst ?? '', popup: 'true' },
    };
  }
  if (!params.challenge) return undefined;
  const url = new URL('/logon', params.loginUrl);
  url.searchParams.set('username', code);
  url.searchParams.set('response', coovaChapResponse(code, params.challenge));
  if (params.dst) url.searchParams.set('userurl', params.dst);
  return { method: 'get', url: url.href };
}
