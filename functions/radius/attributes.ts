// The RADIUS side, free of HTTP and DynamoDB: FreeRADIUS's request attributes read, and the reply attributes written.

import type { NasVendor } from '../store/nas.js';

/**
 * The RADIUS side of the edge, free of HTTP and DynamoDB: what FreeRADIUS's `rest` module
 * sends (its JSON encoding of the request's attributes), and what it accepts back.
 */

/** The `rest` module's body: every request attribute as `{type, value: [...]}` (anything else skipped). */
export type RestBody = Record<string, unknown>;

/** A name the API may read: a dictionary name (`Acct-Status-Type`, `Attr-26.99999.1`). */
const ATTRIBUTE_NAME = /^[A-Za-z0-9.-]{1,64}$/;

/** The first value of one attribute as the module encodes it, or undefined when it is not that shape. */
function firstValue(attr: unknown): string | number | undefined {
  const values = (attr as { value?: unknown } | null)?.value;
  const first = Array.isArray(values) ? values[0] : undefined;
  if (typeof first === 'number' && Number.isFinite(first)) return first;
  if (typeof first === 'string' && first.length <= 4096) return first;
  return undefined;
}

/**
 * The request's attributes as `name -> first value`; what does not look like an attribute is
 * skipped, never refused. UTF-8 arrives encoded twice (the module escapes each byte as a
 * Latin-1 code point): a string is decoded back when it is valid UTF-8 that way, and kept as it
 * came otherwise.
 */
export function requestAttributes(body: RestBody): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, attr] of Object.entries(body)) {
    if (!ATTRIBUTE_NAME.test(name)) continue;
    const first = firstValue(attr);
    if (first === undefined) continue;
    out.set(name, typeof first === 'number' ? String(first) : undoDoubleUtf8(first));
  }
  return out;
}

function undoDoubleUtf8(s: string): string {
  // Only Latin-1 code points, some of them past ASCII: what the module's escaping produces.
  if (![...s].some((c) => c.charCodeAt(0) > 0x7f) || [...s].some((c) => c.charCodeAt(0) > 0xff)) return s;
  const decoded = Buffer.from(s, 'latin1').toString('utf8');
  return decoded.includes('\ufffd') ? s : decoded;
}

/** The login of an Access-Request's attributes. */
export const loginRequestOf = (attrs: ReadonlyMap<string, string>) => ({
  userName: attrs.get('User-Name') ?? '',
  nasId: attrs.get('NAS-Identifier') ?? '',
  callingStationId: attrs.get('Calling-Station-Id'),
  nasPort: attrs.get('NAS-Port'),
  /** The router's source address, as FreeRADIUS set it (never as the packet says). */
  sourceIp: attrs.get('Hotspot-NAS-IP'),
});

/** An access code as typed: upper case, with the spaces and dashes people add removed. */
export const normalizeCode = (s: string): string => s.toUpperCase().replace(/[\s-]/g, '');

/** A MAC address in one spelling (`AA:BB:CC:DD:EE:FF`), whatever the NAS sent; undefined otherwise. */
export function normalizeMac(s: string | undefined): string | undefined {
  const hex = s?.replace(/[^0-9a-f]/gi, '').toUpperCase();
  return hex && hex.length === 12 ? (hex.match(/../g) as string[]).join(':') : undefined;
}

/** A MAC as a router writes it in a User-Name: six pairs of hex digits, with `:` or `-` between or none. */
const MAC_NAME = /^[0-9A-Fa-f]{2}(?:([:-]?)[0-9A-Fa-f]{2})(?:\1[0-9A-Fa-f]{2}){4}$/;

/**
 * The device's MAC when the request is a MAC login (RouterOS hotspot `login-by=mac`): the
 * User-Name is the device's own MAC, the one in its Calling-Station-Id. Undefined for any other
 * request, so a MAC typed on the login page from another device is no MAC login.
 */
export function macLoginOf(req: { userName?: string; callingStationId?: string }): string | undefined {
  if (!req.userName || !MAC_NAME.test(req.userName)) return undefined;
  const mac = normalizeMac(req.userName);
  return mac && mac === normalizeMac(req.callingStationId) ? mac : undefined;
}

/**
 * The key a device holds its lease under on its access code (and its session's `device`): the
 * hotspot and the device's MAC, else its NAS port (a NAS that sends no Calling-Station-Id still
 * keeps devices apart), so that the same MAC at two hotspots is two devices and a Stop at one
 * never releases the other's lease.
 */
export const deviceKey = (req: { callingStationId?: string; nasId: string; nasPort?: string }): string =>
  `${req.nasId}/${normalizeMac(req.callingStationId) ?? `port:${req.nasPort ?? '0'}`}`;

/** A 64-bit byte count split as RADIUS carries it: the low 32 bits and the wraps (gigawords). */
export function splitGigawords(bytes: number): { low: number; gigawords: number } {
  const n = BigInt(Math.max(0, Math.floor(bytes)));
  return { low: Number(n & 0xffffffffn), gigawords: Number(n >> 32n) };
}

/** Octets + gigawords of one direction as one byte count (prefers the 64-bit attribute). */
export function bytesOf(attrs: ReadonlyMap<string, string>, direction: 'Input' | 'Output'): number {
  const wide = attrs.get(`Acct-${direction}-Octets64`);
  if (wide !== undefined && /^\d+$/.test(wide)) return Number(wide);
  const low = Number(attrs.get(`Acct-${direction}-Octets`) ?? 0);
  const wraps = Number(attrs.get(`Acct-${direction}-Gigawords`) ?? 0);
  return (Number.isFinite(wraps) ? wraps : 0) * 2 ** 32 + (Number.isFinite(low) ? low : 0);
}

/** A value FreeRADIUS must take literally: a `%` in it is never expanded. */
const literal = (value: string) => ({ value, do_xlat: false });

export interface Grant {
  /** The code as the subscriber typed it: FreeRADIUS checks the password against it. */
  password: string;
  sessionTimeoutS: number;
  cirKbps: number;
  mirKbps: number;
  /** Bytes this session may use; undefined: no cap. */
  dataBytes: number | undefined;
  interimS: number;
  /** End of the access, for WISPr (ISO 8601). */
  expiresAt: string;
}

/**
 * MikroTik's rate: `rx/tx` from the router's side (rx: the client's upload, tx: its download),
 * no burst, priority 8, then the guaranteed rate (min-rate) in the same order.
 */
export function mikrotikRateLimit(up: number, down: number, minUp: number, minDown: number): string {
  const k = (n: number) => `${n}k`;
  return `${k(up)}/${k(down)} 0/0 0/0 0/0 8 ${k(Math.min(minUp, up))}/${k(Math.min(minDown, down))}`;
}

/** A code's rate: the same both ways, its CIR as min-rate. */
const mikrotikRate = (cir: number, mir: number): string => mikrotikRateLimit(mir, mir, cir, cir);

/** Authorize's accept: only the password FreeRADIUS checks (PAP or CHAP) before post-auth. */
export const passwordReply = (password: string): Record<string, unknown> => ({
  'control:Cleartext-Password': { op: ':=', ...literal(password) },
});

/** The reply of an accepted login, with each vendor's attributes. */
export function acceptReply(vendor: NasVendor, g: Grant): Record<string, unknown> {
  // A limit of 0 reads as "no limit" on the routers: a grant is at least one byte (see authorize).
  if (g.dataBytes !== undefined && g.dataBytes < 1) throw new Error('a data grant is at least one byte');
  const reply: Record<string, unknown> = {
    ...passwordReply(g.password),
    'reply:Session-Timeout': g.sessionTimeoutS,
    'reply:Acct-Interim-Interval': g.interimS,
  };
  const data = g.dataBytes === undefined ? undefined : splitGigawords(g.dataBytes);
  switch (vendor) {
    case 'mikrotik':
      reply['reply:Mikrotik-Rate-Limit'] = literal(mikrotikRate(g.cirKbps, g.mirKbps));
      if (data) {
        reply['reply:Mikrotik-Total-Limit'] = data.low;
        reply['reply:Mikrotik-Total-Limit-Gigawords'] = data.gigawords;
      }
      break;
    case 'coova':
      reply['reply:ChilliSpot-Bandwidth-Max-Up'] = g.mirKbps;
      reply['reply:ChilliSpot-Bandwidth-Max-Down'] = g.mirKbps;
      // CoovaChilli's total is 32 bits with no gigawords attribute: past 4 GiB, cap at the most it takes.
      if (data) reply['reply:ChilliSpot-Max-Total-Octets'] = data.gigawords > 0 ? 0xffffffff : data.low;
      break;
    case 'wispr':
      reply['reply:WISPr-Bandwidth-Max-Up'] = g.mirKbps * 1000;
      reply['reply:WISPr-Bandwidth-Max-Down'] = g.mirKbps * 1000;
      reply['reply:WISPr-Bandwidth-Min-Up'] = g.cirKbps * 1000;
      reply['reply:WISPr-Bandwidth-Min-Down'] = g.cirKbps * 1000;
      reply['reply:WISPr-Session-Terminate-Time'] = literal(g.expiresAt.replace(/\.\d{3}Z$/, 'Z'));
      break;
  }
  return reply;
}

/** Why a login is refused, each with the fixed short French text the subscriber sees. */
export const REFUSALS = {
  unknown_code: 'Code inconnu',
  // The same text as an unknown code: a guesser outside the owning reseller learns nothing.
  wrong_hotspot: 'Code inconnu',
  expired: 'Forfait expiré',
  data_used: 'Volume de données épuisé',
  device_limit: "Nombre maximal d'appareils atteint",
  revoked: 'Code révoqué',
  invalid_request: 'Demande de connexion invalide',
  rate_limited: "Trop d'essais de codes, réessayez plus tard",
  // A MAC login that finds no valid code bound to the device, whatever the reason: the router
  // shows its login page, where the subscriber types a code.
  mac_unknown: 'Appareil non reconnu, saisissez votre code',
  // PPPoE (functions/radius/pppoe.ts): an unknown user name, another reseller's, a hotspot the
  // subscriber does not connect through and a wrong password all read alike.
  pppoe_unknown: 'Identifiant ou mot de passe incorrect',
  pppoe_suspended: 'Abonnement suspendu, contactez votre fournisseur',
  // An in-country edge during a cut holds no subscribers: the login is tried again later.
  pppoe_unavailable: 'Abonnement indisponible pour le moment, réessayez plus tard',
} as const;
export type Refusal = keyof typeof REFUSALS;

/** The body of a refusal (sent with status 401, which FreeRADIUS turns into an Access-Reject). */
export const rejectReply = (reason: Refusal): Record<string, unknown> => ({
  'reply:Reply-Message': literal(REFUSALS[reason]),
});
