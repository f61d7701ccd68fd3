// PPPoE plans and subscribers as a reseller manages them: rules, credentials and the answers' views.

import { randomInt, randomUUID } from 'node:crypto';
import { requireMsisdnLoaded } from '../auth/otp.js';
import { assertOwns, resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import { pick } from '../core/pick.js';
import type { OperatorPrincipal } from '../core/principal.js';
import { getNas } from '../store/nas.js';
import {
  changeSubscriber,
  createPlan,
  createSubscriber,
  getPlan,
  getSubscriber,
  listPlans,
  listRenewals,
  listSubscribers,
  type PppoePlan,
  type PppoeSubscriber,
  updatePlan,
} from '../store/pppoe.js';
import { untilSettled } from '../store/retry.js';
import { resellerCountry } from './currency.js';

/**
 * A reseller's PPPoE plans and subscribers (docs/pppoe.md). Every route acts for the reseller
 * in scope (`resellerInScope`: a reseller its own, an admin the one named); a plan, subscriber
 * or hotspot of another reseller is "not found". Credentials are answered to that reseller only.
 */

export type PlanInput = Omit<
  PppoePlan,
  'id' | 'reseller_id' | 'created_at' | 'updated_at' | 'hidden' | 'max_devices'
> & {
  max_devices?: number;
  hidden?: boolean;
};

/** The subscriber's state as the console sorts it (see docs/pppoe.md, "States"). */
export type SubscriberState = 'new' | 'active' | 'grace' | 'expired' | 'suspended';

/** Letters and digits a subscriber reads off a printed card without confusing them (no 0/o, 1/l/i). */
const PRINTABLE = 'abcdefghjkmnpqrstuvwxyz23456789';
const printable = (n: number) =>
  Array.from({ length: n }, () => PRINTABLE[randomInt(PRINTABLE.length)]).join('');
/** A generated password: 10 printable characters (about 49 bits). */
export const newPassword = () => printable(10);
const newUsername = () => `pp${printable(8)}`;

/** Where the subscriber stands at `nowMs`: paid, within its plan's grace days, or expired. */
export function stateOf(
  s: Pick<PppoeSubscriber, 'status' | 'paid_until'>,
  plan: Pick<PppoePlan, 'grace_days'> | undefined,
  nowMs: number,
): SubscriberState {
  if (s.status === 'suspended') return 'suspended';
  if (!s.paid_until) return 'new';
  const end = Date.parse(s.paid_until);
  if (nowMs < end) return 'active';
  return nowMs < end + (plan?.grace_days ?? 0) * 86_400_000 ? 'grace' : 'expired';
}

const planView = (p: PppoePlan) => ({
  id: p.id,
  name: p.name,
  price_fcfa: p.price_fcfa,
  period: p.period,
  down_kbps: p.down_kbps,
  up_kbps: p.up_kbps,
  ...(p.fair_use ? { fair_use: p.fair_use } : {}),
  max_devices: p.max_devices,
  grace_days: p.grace_days,
  hidden: p.hidden,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/** A subscriber as its reseller's console reads it; `credentials`: with its PPPoE password. */
function subscriberView(s: PppoeSubscriber, plan: PppoePlan | undefined, credentials: boolean) {
  return {
    id: s.id,
    plan_id: s.plan_id,
    msisdn: s.msisdn,
    name: s.name,
    username: s.username,
    ...(credentials ? { password: s.password } : {}),
    nas_ids: s.nas_ids,
    ...(s.address ? { address: s.address } : {}),
    state: stateOf(s, plan, clock.now()),
    periods: s.periods,
    ...(s.paid_until ? { paid_until: s.paid_until } : {}),
    period_bytes: s.period_bytes,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** A reseller's plan, or 404 (another reseller's too). */
export async function ownPlan(resellerId: string, id: string): Promise<PppoePlan> {
  const plan = await getPlan(id);
  if (plan?.reseller_id !== resellerId) throw notFound('Plan');
  return plan;
}

/** A reseller's subscriber (what an operator may see of it), or 404. */
async function ownSubscriber(principal: OperatorPrincipal, resellerId: string, id: string) {
  const s = await getSubscriber(id);
  assertOwns(principal, s?.reseller_id === resellerId ? s : undefined, 'Subscriber');
  return s as PppoeSubscriber;
}

/** The hotspots named must all be the reseller's (another's is "not found", as a NAS is). */
async function checkHotspots(resellerId: string, nasIds: readonly string[]): Promise<void> {
  for (const nasId of new Set(nasIds)) {
    if ((await getNas(nasId))?.reseller_id !== resellerId) throw notFound('NAS');
  }
}

export async function plans(principal: OperatorPrincipal, asked: string | undefined) {
  const resellerId = resellerInScope(principal, asked);
  return { items: (await listPlans(resellerId)).map(planView) };
}

export async function makePlan(principal: OperatorPrincipal, asked: string | undefined, input: PlanInput) {
  const resellerId = resellerInScope(principal, asked);
  const now = clock.iso();
  const plan: PppoePlan = {
    ...input,
    id: randomUUID(),
    reseller_id: resellerId,
    max_devices: input.max_devices ?? 1,
    hidden: input.hidden ?? false,
    created_at: now,
    updated_at: now,
  };
  // A fresh UUID: a refusal is a fault, not a case.
  if (!(await createPlan(plan))) throw new AppError('ERR_CONFLICT', 'Plan id taken, retry');
  return planView(plan);
}

export async function changePlan(
  principal: OperatorPrincipal,
  asked: string | undefined,
  id: string,
  changes: Partial<PlanInput>,
) {
  const resellerId = resellerInScope(principal, asked);
  const updated = await updatePlan(resellerId, id, { ...changes, updated_at: clock.iso() });
  if (!updated) throw notFound('Plan');
  return planView(updated);
}

export interface SubscriberInput {
  plan_id: string;
  msisdn: string;
  name: string;
  nas_ids: string[];
  address?: string;
  username?: string;
  password?: string;
}

export async function subscribers(principal: OperatorPrincipal, asked: string | undefined) {
  const resellerId = resellerInScope(principal, asked);
  const byId = new Map((await listPlans(resellerId)).map((p) => [p.id, p]));
  const items = await listSubscribers(resellerId);
  return { items: items.map((s) => subscriberView(s, byId.get(s.plan_id), false)) };
}

export async function subscriber(principal: OperatorPrincipal, asked: string | undefined, id: string) {
  const resellerId = resellerInScope(principal, asked);
  const s = await ownSubscriber(principal, resellerId, id);
  const [plan, renewals] = await Promise.all([getPlan(s.plan_id), listRenewals(s.id)]);
  return {
    ...subscriberView(s, plan, true),
    renewals: renewals.map((r) =>
      pick(r, 'period', 'starts_at', 'ends_at', 'channel', 'amount_fcfa', 'payment_id', 'at'),
    ),
  };
}

/** A new subscriber, its credentials generated unless given (a given user name taken: 409). */
export async function makeSubscriber(
  principal: OperatorPrincipal,
  asked: string | undefined,
  input: SubscriberInput,
) {
  const resellerId = resellerInScope(principal, asked);
  const plan = await ownPlan(resellerId, input.plan_id);
  await checkHotspots(resellerId, input.nas_ids);
  const msisdn = await requireMsisdnLoaded(input.msisdn, await resellerCountry(resellerId));
  const chosen = input.username;
  // A generated name that happens to be taken is drawn again; a chosen one is refused.
  return untilSettled(
    async () => {
      const now = clock.iso();
      const s: PppoeSubscriber = {
        ...input,
        msisdn,
        id: randomUUID(),
        reseller_id: resellerId,
        username: chosen ?? newUsername(),
        password: input.password ?? newPassword(),
        status: 'active',
        periods: 0,
        period_bytes: 0,
        created_at: now,
        updated_at: now,
      };
      if (await createSubscriber(s)) return subscriberView(s, plan, true);
      if (chosen) throw new AppError('ERR_USERNAME_TAKEN', 'This PPPoE user name is taken');
      return undefined;
    },
    () => {
      throw new AppError('ERR_CONFLICT', 'Could not draw a free user name, retry');
    },
    4,
  );
}

export type SubscriberChanges = Partial<
  Omit<SubscriberInput, 'address'> & { address: string | null; suspended: boolean; new_password: boolean }
>;

/**
 * Changes a subscriber: its details, plan, hotspots, address, credentials (`new_password`: a
 * fresh generated one), or suspended. A change raced by another is read and applied again.
 */
export async function changeSubscriberOf(
  principal: OperatorPrincipal,
  asked: string | undefined,
  id: string,
  changes: SubscriberChanges,
) {
  const resellerId = resellerInScope(principal, asked);
  const plan = changes.plan_id ? await ownPlan(resellerId, changes.plan_id) : undefined;
  if (changes.nas_ids) await checkHotspots(resellerId, changes.nas_ids);
  const { suspended, new_password, address, msisdn: typed, ...rest } = changes;
  const msisdn = typed ? await requireMsisdnLoaded(typed, await resellerCountry(resellerId)) : undefined;
  return untilSettled(
    async () => {
      const read = await ownSubscriber(principal, resellerId, id);
      const set: Partial<PppoeSubscriber> = {
        ...rest,
        ...(msisdn ? { msisdn } : {}),
        ...(address !== undefined ? { address: address ?? undefined } : {}),
        ...(suspended !== undefined ? { status: suspended ? 'suspended' : 'active' } : {}),
        ...(new_password ? { password: newPassword() } : {}),
        updated_at: clock.iso(),
      };
      const outcome = await changeSubscriber(read, set);
      if (outcome === 'taken') throw new AppError('ERR_USERNAME_TAKEN', 'This PPPoE user name is taken');
      if (outcome === 'stale') return undefined;
      return subscriberView({ ...read, ...set }, plan ?? (await getPlan(read.plan_id)), true);
    },
    () => {
      throw new AppError('ERR_CONFLICT', 'Changed by someone else meanwhile, retry');
    },
    4,
  );
}
