/**
 * The activity log read as sentences ("Chez Awa a généré 30 codes Pass Jour"): each write's route
 * says what was done, its facts (counts, amounts, the forfait, a name: kept by the API for this)
 * fill it in, and ids become names (resellers, hotspots, forfaits).
 */
import type { Forfait, Vlan } from '../answers.js';
import { fcfa, num, t } from '../i18n.js';
import { hotspotName } from '../lists.js';
import { w } from './admin-words.js';

type Words = Parameters<typeof w>[0];

/** An entry of GET /activity, as the Journal reads it. */
export interface Entry {
  at: string;
  id: string;
  actor_ref: string;
  role: string;
  reseller_id?: string;
  action: string;
  target: string;
  status: number;
  ip: string;
  facts?: Record<string, string | number>;
}

/** The kinds the Journal filters by, each a family of routes (first match wins). */
export const KINDS = [
  'codes',
  'forfaits',
  'agents',
  'payments',
  'sessions',
  'hotspots',
  'resellers',
  'other',
] as const;
const KIND_OF: [(typeof KINDS)[number], RegExp][] = [
  ['forfaits', /\/forfaits/],
  ['codes', /\/vouchers|\/access\//],
  ['agents', /\/agents/],
  ['payments', /\/payments/],
  ['sessions', /\/sessions|\/alerts/],
  ['hotspots', /\/branding|\/routers|\/network/],
  ['resellers', /\/resellers|\/subscribers/],
];
export const kindOf = (action: string): string => KIND_OF.find(([, re]) => re.test(action))?.[0] ?? 'other';

/** The sentence of each route (its key in the words); a route not listed reads `act_other`. */
const SENTENCE: Record<string, Words> = {
  'POST /api/v1/vouchers/batches': 'act_codes',
  'POST /api/v1/vouchers/generate': 'act_codes',
  'POST /api/v1/resellers/me/forfaits': 'act_forfait_new',
  'PUT /api/v1/resellers/me/forfaits/{id}': 'act_forfait_edit',
  'POST /api/v1/payments/{id}/resend-code': 'act_resend',
  'POST /api/v1/agents': 'act_agent_new',
  'POST /api/v1/agents/{id}/accept': 'act_agent_accept',
  'PUT /api/v1/agents/{id}': 'act_agent_edit',
  'POST /api/v1/agents/{id}/sales': 'act_agent_sale',
  'POST /api/v1/agents/{id}/cash': 'act_cash',
  'POST /api/v1/subscribers/erase': 'act_erase',
  'POST /api/v1/network/vlan/allocate': 'act_vlan',
  'DELETE /api/v1/network/vlans/{vlan_id}': 'act_vlan_release',
  'POST /api/v1/network/sites': 'act_site',
  'POST /api/v1/resellers': 'act_reseller_new',
  'PUT /api/v1/branding/{nas_id}': 'act_branding',
  'PUT /api/v1/branding/{nas_id}/logo': 'act_logo',
  'PUT /api/v1/network/nas/{nas_id}/login-origin': 'act_login_origin',
  'PUT /api/v1/network/dns/status': 'act_dns',
  'PUT /api/v1/alerts/{id}/ack': 'act_ack',
  'POST /api/v1/sessions/{id}/disconnect': 'act_disconnect',
  'POST /api/v1/access/{code}/revoke': 'act_revoke_code',
  'POST /api/v1/routers': 'act_router_new',
  'POST /api/v1/routers/{router_id}/revoke': 'act_router_revoke',
  'POST /api/v1/routers/{router_id}/credentials': 'act_router_script',
  'POST /api/v1/auth/logout': 'act_logout',
};

/** The reseller's name by its id, from the VLAN list (every onboarded reseller has one). */
const resellerName = (vlans: readonly Vlan[], id: string | number | undefined): string | undefined =>
  vlans.find((v) => v.reseller_id === id)?.reseller_name;

/** One entry as a sentence, in the reader's language. */
export function describe(e: Entry, names: { vlans: readonly Vlan[]; forfaits: readonly Forfait[] }): string {
  const f = e.facts ?? {};
  const own = resellerName(names.vlans, e.reseller_id) ?? t('reseller');
  const who =
    e.role === 'admin' ? w('act_operator') : e.role === 'agent' ? w('act_agent_of', { name: own }) : own;
  const forfait =
    names.forfaits.find((x) => x.id === f.forfait_id)?.name ?? (f.forfait_id ? t('forfait') : '');
  // The hotspot a route's path names (branding, logo, login origin), by its name.
  const nas = /\/(?:branding|nas)\/([^/]+)/.exec(e.target)?.[1];
  const forWhom = e.role === 'admin' ? resellerName(names.vlans, f.reseller_id) : undefined;
  let key = SENTENCE[e.action] ?? 'act_other';
  if (e.action === 'POST /api/v1/agents/{id}/allot')
    key = f.float_fcfa !== undefined ? 'act_float' : 'act_stock';
  const amount = f.float_fcfa ?? f.amount_fcfa;
  return w(key, {
    who,
    n: num(Number(f.n ?? f.count ?? 0)),
    forfait,
    amount: typeof amount === 'number' ? fcfa(amount) : '',
    name: f.name !== undefined ? String(f.name) : '',
    hotspot: nas ? hotspotName(names.vlans, decodeURIComponent(nas)) : '',
    for: forWhom ? w('act_for', { name: forWhom }) : '',
  })
    .replace(/\s+/g, ' ')
    .trim();
}
