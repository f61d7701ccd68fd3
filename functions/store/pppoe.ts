// PPPoE monthly subscriptions: a reseller's plans, its subscribers, their logins and paid periods.

import { allOf, cancelled, entity, exists, notExists, type TxItem, transact } from './entity.js';

/** How long a plan's period runs: a calendar month, or seven days. */
export const PLAN_PERIODS = ['month', 'week'] as const;
export type PlanPeriod = (typeof PLAN_PERIODS)[number];

/** Past `gb` counted in a period, the plan's speeds drop to these (fair use: slower, never cut). */
export interface FairUseStep {
  gb: number;
  down_kbps: number;
  up_kbps: number;
}

/** A reseller's monthly (or weekly) PPPoE plan. */
export interface PppoePlan {
  id: string;
  reseller_id: string;
  name: string;
  price_fcfa: number;
  period: PlanPeriod;
  down_kbps: number;
  up_kbps: number;
  fair_use?: FairUseStep;
  /** Sessions one subscriber may hold at once (1 when absent). */
  max_devices: number;
  /** Days after a period's end during which the subscriber keeps the plan's service unpaid. */
  grace_days: number;
  hidden: boolean;
  created_at: string;
  updated_at: string;
}

export type SubscriberStatus = 'active' | 'suspended';

/**
 * A PPPoE subscriber. `password` is kept as typed (see docs/pppoe.md: CHAP and MS-CHAPv2 need
 * the cleartext or what is derived from it, and CHAP has no stored form but the cleartext); it
 * is read only by its reseller's routes and by the RADIUS core, and never logged.
 */
export interface PppoeSubscriber {
  id: string;
  reseller_id: string;
  plan_id: string;
  msisdn: string;
  name: string;
  username: string;
  password: string;
  /** The hotspots (NAS ids) whose PPPoE server it may log in through. */
  nas_ids: string[];
  /** A fixed address (Framed-IP-Address); absent: the router's pool. */
  address?: string;
  status: SubscriberStatus;
  /** Periods paid so far: the next renewal is period `periods + 1` (see `renewSubscriber`). */
  periods: number;
  /** The day of the month its monthly periods end on (that of the first period of a run). */
  billing_day?: number;
  /** End of the last period paid (absent: never paid). */
  paid_until?: string;
  /** Start of the period being counted, and what accounting counted in it. */
  period_started_at?: string;
  period_bytes: number;
  /** When the fair-use step was crossed in this period (its CoA queued then). */
  stepped_at?: string;
  /** The reminders already texted for the period ending at `paid_until` (`d3`, `end`). */
  reminded?: string[];
  created_at: string;
  updated_at: string;
}

/** A paid period: one per (subscriber, period number), so a period is sold and booked once. */
export interface PppoeRenewal {
  subscriber_id: string;
  period: number;
  reseller_id: string;
  plan_id: string;
  starts_at: string;
  ends_at: string;
  channel: 'cash' | 'mobile_money';
  amount_fcfa: number;
  payment_id?: string;
  at: string;
}

const PlanEntity = entity<PppoePlan>('pppoe_plan')({
  key: (p: Pick<PppoePlan, 'id'>) => ({ pk: `PPPOEPLAN#${p.id}`, sk: 'PPPOEPLAN' }),
  indexes: {
    /** A reseller's plans, by creation. */
    byReseller: { gsi: 'gsi2', pk: 'RESELLER#{reseller_id}#PPPOEPLANS', sk: '{created_at}#{id}' },
  },
});

export const SubscriberEntity = entity<PppoeSubscriber>('pppoe_subscriber')({
  key: (s: Pick<PppoeSubscriber, 'id'>) => ({ pk: `PPPOESUB#${s.id}`, sk: 'PPPOESUB' }),
  indexes: {
    /** A reseller's subscribers, by creation. */
    byReseller: { gsi: 'gsi2', pk: 'RESELLER#{reseller_id}#PPPOESUBS', sk: '{created_at}#{id}' },
  },
});

/** A PPPoE user name, taken by one subscriber (user names are unique platform-wide: RADIUS looks them up). */
const LoginEntity = entity<{ username: string; subscriber_id: string }>('pppoe_login')({
  key: (l: { username: string }) => ({ pk: `PPPOE#${l.username}`, sk: 'PPPOE' }),
});

const RenewalEntity = entity<PppoeRenewal>('pppoe_renewal')({
  key: (r: Pick<PppoeRenewal, 'subscriber_id' | 'period'>) => ({
    pk: `PPPOESUB#${r.subscriber_id}`,
    sk: `RENEWAL#${String(r.period).padStart(6, '0')}`,
  }),
});

// Access: PutItem pk=PPPOEPLAN#<id> attribute_not_exists(pk).
export const createPlan = (p: PppoePlan): Promise<boolean> => PlanEntity.put(p, notExists);

// Access: GetItem pk=PPPOEPLAN#<id>.
export const getPlan = (id: string): Promise<PppoePlan | undefined> => PlanEntity.get({ id });

// Access: Query byReseller (gsi2) gsi2pk=RESELLER#<id>#PPPOEPLANS, every page.
export const listPlans = (resellerId: string): Promise<PppoePlan[]> =>
  PlanEntity.queryIndexAll('byReseller', { reseller_id: resellerId });

/** Changes a reseller's plan; undefined when it is not that reseller's. Periods sold keep their price. */
// Access: UpdateItem pk=PPPOEPLAN#<id> condition reseller_id = :owner.
export const updatePlan = (
  resellerId: string,
  id: string,
  changes: Partial<Omit<PppoePlan, 'id' | 'reseller_id' | 'created_at'>>,
): Promise<PppoePlan | undefined> =>
  PlanEntity.updateReturning(
    { id },
    { set: { ...changes } },
    allOf(exists, PlanEntity.where.is('reseller_id', resellerId)),
  );

/**
 * Creates a subscriber and claims its user name, together: false when the name is taken (by
 * anyone: user names are unique, a login names no reseller).
 */
// Access: TransactWriteItems [Put PPPOE#<username> attribute_not_exists(pk), Put PPPOESUB#<id> attribute_not_exists(pk)].
export async function createSubscriber(s: PppoeSubscriber): Promise<boolean> {
  try {
    await transact({
      login: LoginEntity.tx.create({ username: s.username, subscriber_id: s.id }),
      subscriber: SubscriberEntity.tx.create(s),
    });
    return true;
  } catch (error) {
    if (cancelled(error)?.failed('login')) return false;
    throw error;
  }
}

// Access: GetItem pk=PPPOESUB#<id> (ConsistentRead).
export const getSubscriber = (id: string): Promise<PppoeSubscriber | undefined> =>
  SubscriberEntity.get({ id }, { consistent: true });

// Access: Query byReseller (gsi2) gsi2pk=RESELLER#<id>#PPPOESUBS, every page.
export const listSubscribers = (resellerId: string): Promise<PppoeSubscriber[]> =>
  SubscriberEntity.queryIndexAll('byReseller', { reseller_id: resellerId });

/**
 * Changes a subscriber as read (`read`): its fields, and a new user name moved in the same
 * transaction (the old one freed, the new one claimed). `taken`: the new name is someone's;
 * `stale`: the subscriber changed since it was read.
 */
// Access: TransactWriteItems [Update PPPOESUB#<id> condition updated_at = as read, (a new name: Delete PPPOE#<old>, Put PPPOE#<new> attribute_not_exists(pk))].
export async function changeSubscriber(
  read: PppoeSubscriber,
  changes: Partial<Omit<PppoeSubscriber, 'id' | 'reseller_id' | 'created_at'>>,
): Promise<'changed' | 'taken' | 'stale'> {
  const renamed = changes.username !== undefined && changes.username !== read.username;
  const items: Record<string, TxItem> = {
    subscriber: SubscriberEntity.tx.update(
      { id: read.id },
      { set: changes, read },
      SubscriberEntity.where.is('updated_at', read.updated_at),
    ),
    ...(renamed
      ? {
          old: LoginEntity.tx.delete({ username: read.username }),
          login: LoginEntity.tx.create({ username: changes.username as string, subscriber_id: read.id }),
        }
      : {}),
  };
  try {
    await transact(items);
    return 'changed';
  } catch (error) {
    const c = cancelled(error);
    if (c?.failed('login')) return 'taken';
    if (c?.failed('subscriber') || c?.conflict) return 'stale';
    throw error;
  }
}

/**
 * The write of a paid period, for the transaction that sells it: the renewal's record (created
 * once per period number) and the subscriber moved to it, conditioned on the periods it had
 * when read. A second sale of the same period fails one of the two.
 */
// Access: [Put PPPOESUB#<id>/RENEWAL#<n> attribute_not_exists(pk), Update PPPOESUB#<id> condition periods = n-1].
export function renewalItems(
  read: PppoeSubscriber,
  renewal: PppoeRenewal,
  counting: { period_started_at: string; billing_day: number },
): Record<'renewal' | 'subscriber', TxItem> {
  return {
    renewal: RenewalEntity.tx.create(renewal),
    subscriber: SubscriberEntity.tx.update(
      { id: read.id },
      {
        set: {
          periods: renewal.period,
          paid_until: renewal.ends_at,
          billing_day: counting.billing_day,
          updated_at: renewal.at,
          // A new period counts from nothing; one paid ahead keeps counting the current one.
          ...(counting.period_started_at !== read.period_started_at
            ? { period_started_at: counting.period_started_at, period_bytes: 0, stepped_at: undefined }
            : {}),
          reminded: undefined,
        },
        read,
      },
      SubscriberEntity.where.is('periods', read.periods),
    ),
  };
}

/** Whether a renewal transaction failed because the period was sold meanwhile (read again). */
export const renewalRaced = (error: unknown): boolean => {
  const c = cancelled(error);
  return Boolean(c && (c.failed('renewal') || c.failed('subscriber') || c.conflict));
};

// Access: Query pk=PPPOESUB#<id>, sk begins_with RENEWAL#, every page.
export const listRenewals = (subscriberId: string): Promise<PppoeRenewal[]> =>
  RenewalEntity.queryAll({
    pk: SubscriberEntity.key({ id: subscriberId }).pk,
    sk: { beginsWith: 'RENEWAL#' },
    consistent: true,
  });

/** Runs a renewal's transaction: the ledger's items and the store's. */
export const sellPeriod = (items: Record<string, TxItem>): Promise<void> => transact(items);

/**
 * What accounting counted of one PPPoE session toward its subscriber's period: the largest total
 * a report of it carried. A report adds only what it carries beyond this, in the same
 * transaction that moves it, so a replayed or repeated report adds nothing.
 */
export interface PppoeSessionCount {
  subscriber_id: string;
  id: string;
  nas_id: string;
  total_bytes: number;
  updated_at: string;
}

/** Kept 62 days after its last report: longer than a period, then cleaned by TTL. */
const SESSION_KEEP_S = 62 * 86_400;

const SessionCountEntity = entity<PppoeSessionCount>('pppoe_session')({
  key: (s: Pick<PppoeSessionCount, 'subscriber_id' | 'id'>) => ({
    pk: `PPPOESUB#${s.subscriber_id}`,
    sk: `SESSION#${s.id}`,
  }),
  ttl: (s) => Math.floor(Date.parse(s.updated_at) / 1000) + SESSION_KEEP_S,
  ttlFrom: ['updated_at'],
});

/** The subscriber holding a PPPoE user name, and its plan. */
// Access: GetItem PPPOE#<username> (ConsistentRead), then GetItem PPPOESUB#<id> (ConsistentRead), then GetItem PPPOEPLAN#<plan>.
export async function subscriberOfLogin(
  username: string,
): Promise<{ subscriber?: PppoeSubscriber; plan?: PppoePlan }> {
  const login = await LoginEntity.get({ username }, { consistent: true });
  if (!login) return {};
  const subscriber = await getSubscriber(login.subscriber_id);
  if (!subscriber) return {};
  const plan = await getPlan(subscriber.plan_id);
  return { subscriber, ...(plan ? { plan } : {}) };
}

// Access: GetItem pk=PPPOESUB#<id> sk=SESSION#<session> (ConsistentRead).
export const getSessionCount = (subscriberId: string, id: string): Promise<PppoeSessionCount | undefined> =>
  SessionCountEntity.get({ subscriber_id: subscriberId, id }, { consistent: true });

/**
 * A report's bytes counted once: the session's count moved from `asRead` (undefined: none yet)
 * to `count.total_bytes`, and the difference added to the subscriber's `period_bytes`, in one
 * transaction. False: another report of the session got there first (read again).
 */
// Access: TransactWriteItems [Put PPPOESUB#<id>/SESSION#<s> condition total_bytes = as read (or attribute_not_exists(pk)), Update PPPOESUB#<id> ADD period_bytes condition attribute_exists(pk)].
export async function countSessionBytes(
  count: PppoeSessionCount,
  asRead: number | undefined,
): Promise<boolean> {
  const added = count.total_bytes - (asRead ?? 0);
  try {
    await transact({
      session: SessionCountEntity.tx.put(
        count,
        asRead === undefined ? notExists : SessionCountEntity.where.is('total_bytes', asRead),
      ),
      subscriber: SubscriberEntity.tx.update(
        { id: count.subscriber_id },
        { add: { period_bytes: added } },
        exists,
      ),
    });
    return true;
  } catch (error) {
    const c = cancelled(error);
    if (c?.failed('session') || c?.conflict) return false;
    throw error;
  }
}
