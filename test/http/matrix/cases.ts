import { randomUUID } from 'node:crypto';
import { PNG } from 'pngjs';
import { sell } from '../../../functions/agents/agents.js';
import { give } from '../../../functions/agents/handovers.js';
import { SEED_FORFAITS } from '../../../functions/billing/catalogue.js';
import { initiatePayment } from '../../../functions/billing/payments/initiate.js';
import { generateVouchers } from '../../../functions/billing/vouchers.js';
import { config } from '../../../functions/core/config.js';
import { checkLogo, logoPath } from '../../../functions/network/logo.js';
import { allocateVlan } from '../../../functions/network/vlans.js';
import { Access } from '../../../functions/store/access-codes.js';
import { AccountEntity } from '../../../functions/store/accounts.js';
import { inviteAgent } from '../../../functions/store/agent-accounts.js';
import { NEW_AGENT_BOOKS } from '../../../functions/store/agents.js';
import { closeIncident, raiseAlertOnce } from '../../../functions/store/alerts.js';
import { saveLogo } from '../../../functions/store/branding.js';
import { createOwnForfait } from '../../../functions/store/forfaits.js';
import { bindMac } from '../../../functions/store/mac-bindings.js';
import { PaymentEntity } from '../../../functions/store/payments.js';
import { createPlan, createSubscriber, type PppoePlan } from '../../../functions/store/pppoe.js';
import { recordReseller } from '../../../functions/store/resellers.js';
import { Session } from '../../../functions/store/sessions.js';
import { giveSite } from '../../integration/monitoring-fixtures.js';
import { newMsisdn } from '../../support/http.js';
import type { AgentWho, Cast, Who } from './principals.js';

export interface MatrixRequest {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One route of the security matrix: how to build a request about a resource that the owning
 * reseller (`cast.ownerResellerId`) holds, and the status each caller must get.
 */
export interface MatrixCase {
  /** Called once per caller; may create fixtures (fresh ones each call when the route mutates). */
  request: (cast: Cast, who: Who, base: string) => Promise<MatrixRequest>;
  /** The agents' statuses may be left out: `expectedOf` derives them from the route's level. */
  expect: Record<Exclude<Who, AgentWho>, number> & Partial<Record<AgentWho, number>>;
}

/**
 * What an agent gets where a case does not say: refused (403) on every reseller and admin
 * route, the aggregator's and FreeRADIUS's refusals on theirs, and on public and any-token
 * routes what a subscriber gets (an agent's token is a token, nothing more there).
 */
export function expectedOf(c: MatrixCase, auth: string, who: Who): number {
  const given = c.expect[who];
  if (given !== undefined) return given;
  if (auth === 'reseller' || auth === 'admin') return 403;
  return c.expect.subscriber;
}

const DENIED = { none: 401, expired: 401, forged: 401 };
/** The callers a case must answer for (the agents' statuses are derived: `expectedOf`). */
type Expected = MatrixCase['expect'];
/** Every caller gets `status`; `but` names the callers that get another. */
const all = (status: number, but: Partial<Expected> = {}): Expected => ({
  ...{ none: status, expired: status, forged: status, subscriber: status },
  ...{ otherReseller: status, owner: status, admin: status },
  ...but,
});

/** An agent route's statuses: the agent itself, its reseller and admins see it; nobody else does. */
const AGENT_SEES = all(200, { ...DENIED, subscriber: 403, otherReseller: 404, agent: 200, otherAgent: 404 });
/** A reseller route about an agent: its reseller and admins; another reseller does not know it. */
const AGENT_MANAGED = all(200, {
  ...DENIED,
  subscriber: 403,
  otherReseller: 404,
  agent: 403,
  otherAgent: 403,
});
const agentPrincipal = (cast: Cast) =>
  ({
    sub: 'matrix',
    ref: 'SUB-1',
    role: 'agent',
    resellerId: cast.ownerResellerId,
    agentId: cast.ownerAgentId,
    exp: 0,
  }) as const;

const forfaitId = (SEED_FORFAITS[0] as { id: string }).id;
/** The operator giving agents float before a case (no route's caller). */
const MATRIX_ADMIN = { role: 'admin', sub: 'matrix', ref: 'SUB-1', exp: 0 } as const;
const OWNER_OR_ADMIN = all(403, { ...DENIED, owner: 200, admin: 200 });

/** A PPPoE plan of the owning reseller, made in the store. */
async function givenPlan(resellerId: string): Promise<PppoePlan> {
  const now = new Date().toISOString();
  const plan: PppoePlan = {
    ...{ id: randomUUID(), reseller_id: resellerId, name: 'Maison 10M', price_fcfa: 15000, period: 'month' },
    ...{ down_kbps: 10240, up_kbps: 2048, max_devices: 1, grace_days: 2, hidden: false },
    ...{ created_at: now, updated_at: now },
  };
  await createPlan(plan);
  return plan;
}

/** A PPPoE subscriber of the owning reseller (never paid), made in the store. */
async function givenPppoeSubscriber(resellerId: string): Promise<string> {
  const plan = await givenPlan(resellerId);
  const id = randomUUID();
  const now = new Date().toISOString();
  await createSubscriber({
    ...{ id, reseller_id: resellerId, plan_id: plan.id, msisdn: '+2250700000001', name: 'Awa' },
    ...{
      username: `m${id.slice(0, 12)}`,
      password: 'secret-pass',
      nas_ids: ['nas-matrix'],
      status: 'active',
    },
    ...{ periods: 0, period_bytes: 0, created_at: now, updated_at: now },
  });
  return id;
}
const ADMIN_ONLY = all(403, { ...DENIED, admin: 200 });
const ANY_RESELLER = all(200, { ...DENIED, subscriber: 403 });

/** The owning reseller's VLAN (20 sites allowed), made once per cast. */
const vlans = new WeakMap<Cast, Promise<{ vlan_id: number; nas_id: string }>>();
function ownerVlan(cast: Cast): Promise<{ vlan_id: number; nas_id: string }> {
  let v = vlans.get(cast);
  if (!v) {
    v = allocateVlan({
      resellerId: cast.ownerResellerId,
      resellerName: `Matrix ${cast.ownerResellerId.slice(0, 8)}`,
      siteCount: 20,
    });
    vlans.set(cast, v);
  }
  return v;
}
let siteNumber = 0;

const PUBLIC = all(200);
const ANY_TOKEN = all(200, DENIED);

/**
 * A RADIUS route refuses every session token, anonymous callers included, with a 5xx: its
 * only caller is FreeRADIUS with its own bearer secret, and a 401 would mean "reject the user".
 */
const RADIUS_ONLY = all(502);
const EDGE_ONLY = all(502);
const RADIUS_BODY = { 'User-Name': { type: 'string', value: ['ABCDEFGHJK'] } };

/** A live RADIUS session of the owning reseller (fresh for each caller: a disconnect changes it). */
async function ownerSession(cast: Cast): Promise<string> {
  const id = randomUUID().replace(/-/g, '');
  const now = new Date().toISOString();
  await Session.put({
    id,
    code: 'MATRIXCODE',
    nas_id: 'access_matrix_nas',
    reseller_id: cast.ownerResellerId,
    device: '02:00:00:00:00:01',
    acct_session_id: 'MATRIX01',
    nas_ip: '127.0.0.1',
    status: 'open',
    total_bytes: 0,
    session_time_s: 0,
    started_at: now,
    last_report_at: now,
  });
  return id;
}

/** An access code of the owning reseller (fresh for each caller: a revoke changes it). */
async function ownerCode(cast: Cast): Promise<string> {
  const code = randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase();
  await Access.put({
    code,
    reseller_id: cast.ownerResellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: forfaitId,
    offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 64, mir_kbps: 64, max_devices: 1 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  });
  return code;
}
/** A router of the owning reseller (RadSec), registered directly, one per request. */
async function ownerRouter(cast: Cast): Promise<string> {
  const { register } = await import('../../../functions/routers/routers.js');
  const { router } = await register({
    reseller_id: cast.ownerResellerId,
    name: 'Matrix router',
    nas_ids: [(await ownerVlan(cast)).nas_id],
    transport: 'radsec',
  });
  return router.router_id;
}
/** A router is "not found" for another reseller: its id does not leak. */
/** A MAC of its own for each call (the portal's device). */
const randomMac = (): string =>
  (randomUUID().replace(/-/g, '').slice(0, 12).match(/../g) as string[]).join(':').toUpperCase();

/** A code of the matrix subscriber at the owning reseller, with one device remembered for it. */
async function subscriberDevice(cast: Cast): Promise<{ code: string; mac: string }> {
  const code = await ownerCode(cast);
  const read = await Access.get({ code });
  if (!read) throw new Error('matrix code not stored');
  await Access.update({ code }, { set: { subscriber_id: cast.subscriberId }, read });
  const stored = { ...read, subscriber_id: cast.subscriberId };
  const mac = randomMac();
  const now = new Date().toISOString();
  const outcome = await bindMac(
    { reseller_id: cast.ownerResellerId, mac, code, nas_id: 'access_matrix', bound_at: now, expires_at: now },
    stored,
  );
  if (outcome !== 'bound') throw new Error('matrix device not bound');
  return { code, mac };
}

const OWNER_OR_ADMIN_ELSE_NOT_FOUND = { ...OWNER_OR_ADMIN, otherReseller: 404 };

/** A 32 x 32 PNG, as the console's canvas would send it. */
const matrixLogo = () => {
  const image = new PNG({ width: 32, height: 32 });
  image.data.fill(200);
  return PNG.sync.write(image);
};

/** Every route of the route table has a row here; the inventory test fails otherwise. */
export const cases: Record<string, MatrixCase> = {
  'POST /api/v1/auth/otp/request': {
    request: async () => ({ path: '', body: { msisdn: newMsisdn() } }),
    expect: PUBLIC,
  },
  'POST /api/v1/auth/otp/verify': {
    // No code was sent to this number: every caller gets the same 401, token or not. A number of
    // its own per caller: guesses without an otp_token are limited per number.
    request: async () => ({ path: '', body: { msisdn: newMsisdn(), otp: '123456' } }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 401,
      otherReseller: 401,
      owner: 401,
      admin: 401,
    },
  },
  'GET /api/v1/auth/session': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  // The cast's tokens are minted for no account: a logout ends nothing the other cases use.
  'POST /api/v1/auth/logout': {
    request: async () => ({ path: '' }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 204,
      otherReseller: 204,
      owner: 204,
      admin: 204,
    },
  },
  'POST /api/v1/auth/logout/all': {
    request: async () => ({ path: '' }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 204,
      otherReseller: 204,
      owner: 204,
      admin: 204,
    },
  },
  'POST /api/v1/auth/refresh': {
    // A refresh token of no session: every caller gets the same 401, session token or not.
    request: async () => ({
      path: '',
      body: { refresh_token: `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.0.${'A'.repeat(43)}` },
    }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 401,
      otherReseller: 401,
      owner: 401,
      admin: 401,
    },
  },
  'POST /api/v1/auth/device/session': {
    // A credential nobody was given: every caller gets the same 401, token or not.
    request: async () => ({ path: '', body: { device_token: 'A'.repeat(43) } }),
    expect: {
      none: 401,
      expired: 401,
      forged: 401,
      subscriber: 401,
      otherReseller: 401,
      owner: 401,
      admin: 401,
    },
  },
  'POST /api/v1/auth/device/revoke': {
    request: async () => ({ path: '', body: { device_token: 'A'.repeat(43) } }),
    expect: {
      none: 204,
      expired: 204,
      forged: 204,
      subscriber: 204,
      otherReseller: 204,
      owner: 204,
      admin: 204,
    },
  },
  'GET /api/v1/forfaits': { request: async () => ({ path: '' }), expect: PUBLIC },
  'GET /api/v1/resellers/me/forfaits': {
    request: async (cast) => ({ path: `/api/v1/resellers/me/forfaits?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'POST /api/v1/resellers/me/forfaits': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/forfaits?reseller_id=${cast.ownerResellerId}`,
      body: {
        name: 'Pass Matrix',
        price_fcfa: 100,
        duration_hours: 1,
        data_limit_mb: 0,
        cir_kbps: 256,
        mir_kbps: 1024,
      },
    }),
    expect: all(403, { ...DENIED, owner: 201, admin: 201 }),
  },
  'PUT /api/v1/resellers/me/forfaits/{id}': {
    request: async (cast) => {
      const made = await createOwnForfait(
        cast.ownerResellerId,
        {
          id: randomUUID(),
          name: 'Pass Matrix',
          price_fcfa: 100,
          duration_hours: 1,
          data_limit_mb: 0,
          cir_kbps: 256,
          mir_kbps: 1024,
        },
        1000,
      );
      return {
        path: `/api/v1/resellers/me/forfaits/${made?.id}?reseller_id=${cast.ownerResellerId}`,
        body: { hidden: true },
      };
    },
    expect: OWNER_OR_ADMIN,
  },

  'GET /api/v1/resellers/me/pppoe/plans': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/plans?reseller_id=${cast.ownerResellerId}`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'POST /api/v1/resellers/me/pppoe/plans': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/plans?reseller_id=${cast.ownerResellerId}`,
      body: {
        name: 'Maison',
        price_fcfa: 15000,
        period: 'month',
        down_kbps: 10240,
        up_kbps: 2048,
        grace_days: 2,
      },
    }),
    expect: all(403, { ...DENIED, owner: 201, admin: 201 }),
  },
  'PUT /api/v1/resellers/me/pppoe/plans/{id}': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/plans/${(await givenPlan(cast.ownerResellerId)).id}?reseller_id=${cast.ownerResellerId}`,
      body: { hidden: true },
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/resellers/me/pppoe/subscribers': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/subscribers?reseller_id=${cast.ownerResellerId}`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'POST /api/v1/resellers/me/pppoe/subscribers': {
    // The hotspot named is nobody's: the owner and an admin get 404 once past auth.
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/subscribers?reseller_id=${cast.ownerResellerId}`,
      body: {
        plan_id: (await givenPlan(cast.ownerResellerId)).id,
        msisdn: '+2250700000001',
        name: 'Awa',
        nas_ids: [`nas-${randomUUID()}`],
      },
    }),
    expect: all(403, { ...DENIED, owner: 404, admin: 404 }),
  },
  'GET /api/v1/resellers/me/pppoe/subscribers/{id}': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/subscribers/${await givenPppoeSubscriber(cast.ownerResellerId)}?reseller_id=${cast.ownerResellerId}`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'PUT /api/v1/resellers/me/pppoe/subscribers/{id}': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/subscribers/${await givenPppoeSubscriber(cast.ownerResellerId)}?reseller_id=${cast.ownerResellerId}`,
      body: { suspended: true },
    }),
    expect: OWNER_OR_ADMIN,
  },
  'POST /api/v1/resellers/me/pppoe/subscribers/{id}/renewals': {
    request: async (cast) => ({
      path: `/api/v1/resellers/me/pppoe/subscribers/${await givenPppoeSubscriber(cast.ownerResellerId)}/renewals?reseller_id=${cast.ownerResellerId}`,
      body: { period: 1 },
    }),
    expect: all(403, { ...DENIED, owner: 201, admin: 201 }),
  },
  'POST /api/v1/pppoe/payments': {
    // Every caller's number differs from the subscriber's: not found, whoever asks.
    request: async (cast) => ({
      path: '/api/v1/pppoe/payments',
      body: { subscriber_id: await givenPppoeSubscriber(cast.ownerResellerId), provider: 'wave' },
    }),
    expect: all(404, DENIED),
  },

  'POST /api/v1/payments/initiate': {
    request: async () => ({
      path: '/api/v1/payments/initiate',
      body: { forfait_id: forfaitId, provider: 'wave' },
    }),
    expect: all(201, DENIED),
  },
  'POST /api/v1/payments/webhook': {
    request: async () => ({
      path: '/api/v1/payments/webhook',
      body: {
        event_id: randomUUID(),
        transaction_id: randomUUID(),
        status: 'completed',
        amount_fcfa: 100,
        provider: 'wave',
      },
    }),
    // A session token is not the aggregator's secret, whoever holds it.
    expect: all(401),
  },
  'POST /api/v1/payments/notify/{provider}': {
    request: async () => {
      // The provider's signature is the only credential: a session token proves nothing here.
      process.env.FEDAPAY_WEBHOOK_SECRET ??= 'matrix-fedapay-webhook-secret';
      return {
        path: '/api/v1/payments/notify/fedapay',
        body: { id: 1, name: 'transaction.approved', entity: { id: 1 } },
        headers: { 'x-fedapay-signature': `t=${Math.floor(Date.now() / 1000)},s=${'0'.repeat(64)}` },
      };
    },
    expect: all(401),
  },
  'GET /api/v1/payments/{id}/status': {
    request: async (cast) => {
      const p = await initiatePayment({ subscriberId: cast.subscriberId, forfaitId, provider: 'wave' });
      return { path: `/api/v1/payments/${p.transaction_id}/status` };
    },
    expect: {
      ...DENIED,
      subscriber: 200,
      otherReseller: 404,
      owner: 404,
      admin: 200,
      agent: 404,
      otherAgent: 404,
    },
  },
  'GET /api/v1/payments/unused': {
    request: async (cast) => ({ path: `/api/v1/payments/unused?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'POST /api/v1/payments/{id}/resend-code': {
    request: async (cast) => {
      // A completed payment of the owning reseller, with its code and buyer's number.
      const id = randomUUID();
      const now = new Date().toISOString();
      await PaymentEntity.put({
        id,
        subscriber_id: cast.subscriberId,
        forfait_id: forfaitId,
        forfait_name: 'Heure',
        offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 512, mir_kbps: 1024, max_devices: 1 },
        amount_fcfa: 100,
        currency: 'XOF',
        provider: 'wave',
        reseller_id: cast.ownerResellerId,
        status: 'completed',
        created_at: now,
        expires_at: now,
        completed_at: now,
        msisdn: '+2250700000001',
        access_code: 'MATRIXCODE',
      });
      return { path: `/api/v1/payments/${id}/resend-code` };
    },
    // Another reseller's payment is not found: its existence does not leak.
    expect: { ...OWNER_OR_ADMIN, otherReseller: 404 },
  },
  'POST /api/v1/vouchers/generate': {
    request: async (cast) => {
      // Vouchers are made for a reseller the platform knows.
      await recordReseller({ resellerId: cast.ownerResellerId });
      return {
        path: '/api/v1/vouchers/generate',
        body: { forfait_id: forfaitId, reseller_id: cast.ownerResellerId, n: 1 },
      };
    },
    expect: { ...DENIED, subscriber: 403, otherReseller: 403, owner: 403, admin: 201 },
  },
  'POST /api/v1/vouchers/batches': {
    request: async (cast) => {
      await recordReseller({ resellerId: cast.ownerResellerId });
      return { path: '', body: { forfait_id: forfaitId, reseller_id: cast.ownerResellerId, n: 1 } };
    },
    expect: { ...DENIED, subscriber: 403, otherReseller: 403, owner: 201, admin: 201 },
  },
  'POST /api/v1/vouchers/redeem': {
    request: async (cast) => {
      await recordReseller({ resellerId: cast.ownerResellerId });
      const { items } = await generateVouchers({ forfaitId, resellerId: cast.ownerResellerId, n: 1 });
      return { path: '/api/v1/vouchers/redeem', body: { code: items[0]?.code } };
    },
    expect: { ...DENIED, subscriber: 200, otherReseller: 200, owner: 200, admin: 200 },
  },
  'GET /api/v1/vouchers': {
    request: async (cast) => ({ path: `/api/v1/vouchers?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/vouchers/export': {
    request: async (cast) => {
      await recordReseller({ resellerId: cast.ownerResellerId });
      const { batch_id } = await generateVouchers({ forfaitId, resellerId: cast.ownerResellerId, n: 2 });
      return { path: `/api/v1/vouchers/export?batch_id=${batch_id}` };
    },
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/billing/summary': {
    request: async (cast) => ({
      path: `/api/v1/billing/summary?reseller_id=${cast.ownerResellerId}&month=2024-01`,
    }),
    expect: OWNER_OR_ADMIN,
  },

  'GET /api/v1/billing/sales': {
    request: async (cast) => ({
      path: `/api/v1/billing/sales?reseller_id=${cast.ownerResellerId}&from=2024-01-01&to=2024-01-31`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/billing/report': {
    request: async (cast) => ({
      path: `/api/v1/billing/report?reseller_id=${cast.ownerResellerId}&from=2024-01-01&to=2024-12-31`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/billing/report/export': {
    request: async (cast) => ({
      path: `/api/v1/billing/report/export?reseller_id=${cast.ownerResellerId}&from=2024-01-01&to=2024-12-31`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/payments': {
    request: async (cast) => ({ path: `/api/v1/payments?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/sessions': {
    request: async (cast) => ({ path: `/api/v1/sessions?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/sessions/ended': {
    request: async (cast) => ({
      path: `/api/v1/sessions/ended?reseller_id=${cast.ownerResellerId}&code=ABCD2345EF`,
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/activity': { request: async () => ({ path: '' }), expect: ADMIN_ONLY },
  'POST /api/v1/resellers': {
    // A fresh number each time: only the admin's call creates a reseller (and takes a VLAN).
    request: async () => ({
      path: '',
      body: { msisdn: newMsisdn(), name: `Matrix ${randomUUID().slice(0, 6)}`, country: 'CI' },
    }),
    expect: { ...DENIED, subscriber: 403, otherReseller: 403, owner: 403, admin: 201 },
  },

  'GET /api/v1/network/vlans': { request: async () => ({ path: '' }), expect: ANY_RESELLER },
  'POST /api/v1/subscribers/erase': {
    request: async (_c, who) => {
      const msisdn = newMsisdn();
      // A fresh subscriber for the admin (the erasure deletes it); any number for the others.
      if (who === 'admin')
        await AccountEntity.put({
          id: randomUUID(),
          msisdn,
          role: 'subscriber',
          created_at: new Date().toISOString(),
        });
      return { path: '', body: { msisdn } };
    },
    expect: { ...ADMIN_ONLY, admin: 200 },
  },
  'POST /api/v1/network/vlan/allocate': {
    request: async () => ({
      path: '',
      body: { reseller_id: randomUUID(), reseller_name: `Spot ${randomUUID().slice(0, 8)}`, site_count: 1 },
    }),
    expect: { ...ADMIN_ONLY, admin: 201 },
  },
  'DELETE /api/v1/network/vlans/{vlan_id}': {
    request: async (_c, who) => {
      if (who !== 'admin') return { path: '/api/v1/network/vlans/10' };
      const v = await allocateVlan({
        resellerId: randomUUID(),
        resellerName: `Gone ${randomUUID().slice(0, 8)}`,
        siteCount: 1,
      });
      return { path: `/api/v1/network/vlans/${v.vlan_id}` };
    },
    expect: { ...ADMIN_ONLY, admin: 204 },
  },
  'POST /api/v1/network/sites': {
    request: async (cast) => {
      await ownerVlan(cast);
      siteNumber += 1;
      return {
        path: '',
        body: {
          reseller_id: cast.ownerResellerId,
          site_number: siteNumber,
          city: 'Daloa',
          latitude: 6.88,
          longitude: -6.45,
        },
      };
    },
    expect: { ...OWNER_OR_ADMIN, owner: 201, admin: 201 },
  },
  'GET /api/v1/network/sites/{reseller_id}': {
    request: async (cast) => {
      await ownerVlan(cast);
      return { path: `/api/v1/network/sites/${cast.ownerResellerId}` };
    },
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/captive/{nas_id}': {
    request: async (cast) => ({ path: `/api/v1/captive/${(await ownerVlan(cast)).nas_id}` }),
    expect: PUBLIC,
  },
  'GET /api/v1/branding/{nas_id}': {
    request: async (cast) => ({ path: `/api/v1/branding/${(await ownerVlan(cast)).nas_id}` }),
    expect: PUBLIC,
  },
  'PUT /api/v1/branding/{nas_id}': {
    request: async (cast) => ({
      path: `/api/v1/branding/${(await ownerVlan(cast)).nas_id}`,
      body: { primary_color: '#123456' },
    }),
    expect: OWNER_OR_ADMIN,
  },
  'PUT /api/v1/branding/{nas_id}/logo': {
    request: async (cast) => ({
      path: `/api/v1/branding/${(await ownerVlan(cast)).nas_id}/logo`,
      body: { image: matrixLogo().toString('base64') },
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/branding/{nas_id}/logo/{hash}': {
    request: async (cast) => {
      const { nas_id } = await ownerVlan(cast);
      const logo = await checkLogo(matrixLogo().toString('base64'));
      const url = `${config().PUBLIC_BASE_URL}${logoPath(nas_id, logo.hash)}`;
      await saveLogo(cast.ownerResellerId, { nas_id, ...logo, updated_at: new Date().toISOString() }, url);
      return { path: logoPath(nas_id, logo.hash) };
    },
    expect: PUBLIC,
  },
  'PUT /api/v1/network/nas/{nas_id}/login-origin': {
    request: async (cast) => ({
      path: `/api/v1/network/nas/${(await ownerVlan(cast)).nas_id}/login-origin`,
      body: { login_origin: 'http://10.5.50.1' },
    }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/network/dns/status': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'PUT /api/v1/network/dns/status': {
    request: async () => ({
      path: '',
      body: { blocklist_count: 10, sinkhole_ip: '10.0.0.53', last_update: new Date().toISOString() },
    }),
    expect: ADMIN_ONLY,
  },
  'GET /api/v1/network/gateway/rules': { request: async () => ({ path: '' }), expect: ADMIN_ONLY },

  'GET /api/v1/monitoring/overview': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'GET /api/v1/monitoring/status': { request: async () => ({ path: '' }), expect: PUBLIC },
  'GET /api/v1/canary/status': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'GET /api/v1/alerts': { request: async () => ({ path: '?status=all' }), expect: ANY_RESELLER },
  'PUT /api/v1/alerts/{id}/ack': {
    request: async (cast) => {
      const site = `access_matrix_${randomUUID().slice(0, 8)}`;
      await giveSite(cast.ownerResellerId, site);
      const alert = await raiseAlertOnce({
        type: 'SLA_DEGRADED',
        severity: 'P1',
        site,
        ts: new Date().toISOString(),
        message: 'matrix',
      });
      await closeIncident(site, 'SLA_DEGRADED');
      return { path: `/api/v1/alerts/${alert?.id}/ack`, body: { user_id: randomUUID() } };
    },
    expect: OWNER_OR_ADMIN,
  },

  'POST /api/v1/radius/authorize': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: RADIUS_ONLY,
  },
  'POST /api/v1/radius/post-auth': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: RADIUS_ONLY,
  },
  'POST /api/v1/radius/accounting': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: RADIUS_ONLY,
  },
  'POST /api/v1/radius/disconnects/claim': {
    request: async () => ({ path: '', body: {} }),
    expect: RADIUS_ONLY,
  },
  'POST /api/v1/radius/disconnects/{id}/result': {
    request: async (cast) => ({
      path: `/api/v1/radius/disconnects/${await ownerSession(cast)}/result`,
      body: { attempt: 1, outcome: 'ack' },
    }),
    expect: RADIUS_ONLY,
  },
  // Another reseller's session or code is "not found", as a payment is: its existence does not leak.
  'GET /api/v1/sessions/{id}': {
    request: async (cast) => ({ path: `/api/v1/sessions/${await ownerSession(cast)}` }),
    expect: { ...OWNER_OR_ADMIN, otherReseller: 404 },
  },
  'POST /api/v1/sessions/{id}/disconnect': {
    request: async (cast) => ({ path: `/api/v1/sessions/${await ownerSession(cast)}/disconnect` }),
    expect: { ...OWNER_OR_ADMIN, otherReseller: 404, owner: 202, admin: 202 },
  },
  'POST /api/v1/access/{code}/revoke': {
    request: async (cast) => ({ path: `/api/v1/access/${await ownerCode(cast)}/revoke` }),
    expect: { ...OWNER_OR_ADMIN, otherReseller: 404 },
  },
  'POST /api/v1/access/{code}/topups': {
    request: async (cast) => ({
      path: `/api/v1/access/${await ownerCode(cast)}/topups`,
      body: { forfait_id: forfaitId },
    }),
    expect: { ...OWNER_OR_ADMIN, otherReseller: 404, owner: 201, admin: 201 },
  },
  'POST /api/v1/radius/client': {
    request: async () => ({ path: '', body: { 'Hotspot-NAS-IP': { type: 'string', value: ['192.0.2.1'] } } }),
    expect: RADIUS_ONLY,
  },
  // An edge's rows: no session token, nor the front's bearer, is an edge's (test/edge/ holds
  // the edge's own token, its revocation and its scope).
  'POST /api/v1/edge/replica': {
    request: async () => ({ path: '', body: { codes: [] } }),
    expect: EDGE_ONLY,
  },
  'POST /api/v1/edge/radius/authorize': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: EDGE_ONLY,
  },
  'POST /api/v1/edge/radius/post-auth': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: EDGE_ONLY,
  },
  'POST /api/v1/edge/radius/accounting': {
    request: async () => ({ path: '', body: RADIUS_BODY }),
    expect: EDGE_ONLY,
  },
  'POST /api/v1/edge/radius/client': {
    request: async () => ({ path: '', body: { 'Hotspot-NAS-IP': { type: 'string', value: ['192.0.2.1'] } } }),
    expect: EDGE_ONLY,
  },
  'POST /api/v1/routers': {
    request: async (cast) => ({
      path: '',
      body: {
        reseller_id: cast.ownerResellerId,
        name: 'Matrix router',
        nas_ids: [(await ownerVlan(cast)).nas_id],
        transport: 'radsec',
      },
    }),
    expect: { ...OWNER_OR_ADMIN, owner: 201, admin: 201 },
  },
  'GET /api/v1/routers': {
    request: async (cast) => ({ path: `?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/routers/{router_id}': {
    request: async (cast) => ({ path: `/api/v1/routers/${await ownerRouter(cast)}` }),
    expect: OWNER_OR_ADMIN_ELSE_NOT_FOUND,
  },
  'POST /api/v1/routers/{router_id}/revoke': {
    request: async (cast) => ({ path: `/api/v1/routers/${await ownerRouter(cast)}/revoke` }),
    expect: OWNER_OR_ADMIN_ELSE_NOT_FOUND,
  },
  'POST /api/v1/routers/{router_id}/credentials': {
    request: async (cast) => ({ path: `/api/v1/routers/${await ownerRouter(cast)}/credentials` }),
    expect: { ...OWNER_OR_ADMIN_ELSE_NOT_FOUND, owner: 201, admin: 201 },
  },
  'POST /api/v1/access/check': {
    request: async () => ({ path: '', body: { nas_id: 'access_nowhere', code: 'ABCDEFGHJK' } }),
    expect: PUBLIC,
  },
  'GET /api/v1/access/mine': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'POST /api/v1/access/pass': {
    // Knowing the code is the right to a pass, within the caller's own account budget.
    request: async (cast) => ({
      path: '',
      body: { nas_id: (await ownerVlan(cast)).nas_id, code: await ownerCode(cast), mac: randomMac() },
    }),
    expect: ANY_TOKEN,
  },
  'POST /api/v1/access/devices': {
    request: async (cast) => ({
      path: '',
      body: { nas_id: (await ownerVlan(cast)).nas_id, code: await ownerCode(cast), mac: randomMac() },
    }),
    expect: PUBLIC,
  },
  'POST /api/v1/access/devices/forget': {
    request: async (cast) => ({
      path: '',
      body: { nas_id: (await ownerVlan(cast)).nas_id, code: await ownerCode(cast), mac: randomMac() },
    }),
    expect: PUBLIC,
  },
  'GET /api/v1/access/devices/mine': { request: async () => ({ path: '' }), expect: ANY_TOKEN },
  'DELETE /api/v1/access/{code}/devices/{mac}': {
    // The code's own subscriber, its reseller and admins; anyone else does not know the code.
    request: async (cast) => {
      const { code, mac } = await subscriberDevice(cast);
      return { path: `/api/v1/access/${code}/devices/${mac}` };
    },
    expect: { ...ANY_TOKEN, otherReseller: 404, agent: 404, otherAgent: 404 },
  },
  'GET /portal/{nas_id}': {
    request: async (cast) => ({ path: `/portal/${(await ownerVlan(cast)).nas_id}` }),
    expect: PUBLIC,
  },
  'GET /console': { request: async () => ({ path: '' }), expect: PUBLIC },
  'GET /console/assets/{file}': {
    // A name that is no asset: 404 for everyone (the route is public).
    request: async () => ({ path: '/console/assets/none.js' }),
    expect: {
      none: 404,
      expired: 404,
      forged: 404,
      subscriber: 404,
      otherReseller: 404,
      owner: 404,
      admin: 404,
    },
  },
  'GET /portal/assets/{file}': {
    // A name that is no asset: 404 for everyone, whoever asks (the route is public).
    request: async () => ({ path: '/portal/assets/none.js' }),
    expect: {
      none: 404,
      expired: 404,
      forged: 404,
      subscriber: 404,
      otherReseller: 404,
      owner: 404,
      admin: 404,
    },
  },
  // ---- agents ----
  'POST /api/v1/agents': {
    request: async (cast) => {
      await recordReseller({ resellerId: cast.ownerResellerId });
      return {
        path: '',
        body: { msisdn: newMsisdn(), reseller_id: cast.ownerResellerId, commission_bp: 1000 },
      };
    },
    expect: { ...DENIED, subscriber: 403, otherReseller: 403, owner: 201, admin: 201 },
  },
  'POST /api/v1/agents/{id}/accept': {
    // An invitation to a number none of the callers holds: only that number's holder may accept.
    request: async (cast) => {
      const id = randomUUID();
      await inviteAgent({
        id,
        reseller_id: cast.ownerResellerId,
        msisdn: newMsisdn(),
        commission_bp: 1000,
        ...NEW_AGENT_BOOKS,
        stock: {},
        created_at: new Date().toISOString(),
        status: 'invited',
      });
      return { path: `/api/v1/agents/${id}/accept` };
    },
    expect: all(404, DENIED),
  },
  'GET /api/v1/agents': {
    request: async (cast) => ({ path: `/api/v1/agents?reseller_id=${cast.ownerResellerId}` }),
    expect: OWNER_OR_ADMIN,
  },
  'GET /api/v1/agents/{id}': {
    request: async (cast) => ({ path: `/api/v1/agents/${cast.ownerAgentId}` }),
    expect: AGENT_SEES,
  },
  'PUT /api/v1/agents/{id}': {
    request: async (cast) => ({ path: `/api/v1/agents/${cast.ownerAgentId}`, body: { commission_bp: 1000 } }),
    expect: AGENT_MANAGED,
  },
  'POST /api/v1/agents/{id}/allot': {
    request: async (cast) => ({
      path: `/api/v1/agents/${cast.ownerAgentId}/allot`,
      body: { float_fcfa: 100 },
    }),
    expect: AGENT_MANAGED,
  },
  'POST /api/v1/agents/{id}/sales': {
    request: async (cast) => {
      // A float for one sale, given before each call: only the agent itself may use it.
      await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100_000 });
      return { path: `/api/v1/agents/${cast.ownerAgentId}/sales`, body: { forfait_id: forfaitId } };
    },
    expect: { ...AGENT_SEES, owner: 403, admin: 403, agent: 201 },
  },
  'POST /api/v1/agents/{id}/topups': {
    request: async (cast) => {
      await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100_000 });
      return {
        path: `/api/v1/agents/${cast.ownerAgentId}/topups`,
        body: { code: await ownerCode(cast), forfait_id: forfaitId },
      };
    },
    expect: { ...AGENT_SEES, owner: 403, admin: 403, agent: 201 },
  },
  'GET /api/v1/agents/{id}/sales': {
    request: async (cast) => ({
      path: `/api/v1/agents/${cast.ownerAgentId}/sales?from=2024-01-01&to=2024-01-31`,
    }),
    expect: AGENT_SEES,
  },
  'GET /api/v1/agents/{id}/sales/export': {
    request: async (cast) => ({
      path: `/api/v1/agents/${cast.ownerAgentId}/sales/export?from=2024-01-01&to=2024-01-31`,
    }),
    expect: AGENT_SEES,
  },
  'GET /api/v1/agents/{id}/handovers': {
    request: async (cast) => ({ path: `/api/v1/agents/${cast.ownerAgentId}/handovers` }),
    expect: AGENT_SEES,
  },
  'POST /api/v1/agents/{id}/sales/{code}/undo': {
    request: async (cast) => {
      // A sale just made, undone once by whoever may: the agent itself, its reseller, an admin.
      await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100_000 });
      const sold = await sell(agentPrincipal(cast), cast.ownerAgentId, { forfait_id: forfaitId });
      return { path: `/api/v1/agents/${cast.ownerAgentId}/sales/${sold.sale.code}/undo` };
    },
    expect: AGENT_SEES,
  },
  'POST /api/v1/agents/{id}/handovers/{handover_id}/undo': {
    request: async (cast) => {
      // A float just given, undone once by whoever may.
      const given = await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100 });
      return { path: `/api/v1/agents/${cast.ownerAgentId}/handovers/${given.handover.id}/undo` };
    },
    expect: AGENT_MANAGED,
  },
  'POST /api/v1/agents/{id}/move': {
    request: async (cast) => {
      await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100 });
      return {
        path: `/api/v1/agents/${cast.ownerAgentId}/move`,
        body: { to_agent_id: cast.otherAgentId, float_fcfa: 100 },
      };
    },
    expect: AGENT_MANAGED,
  },
  'POST /api/v1/agents/{id}/cash': {
    request: async (cast) => {
      // A sale first, so that the agent owes at least the 1 FCFA recorded.
      await give(MATRIX_ADMIN, cast.ownerAgentId, { float_fcfa: 100_000 });
      await sell(agentPrincipal(cast), cast.ownerAgentId, { forfait_id: forfaitId });
      return { path: `/api/v1/agents/${cast.ownerAgentId}/cash`, body: { amount_fcfa: 1 } };
    },
    expect: AGENT_MANAGED,
  },
};
