// Routers' records: created, read, revoked, their NAS ids and credentials changed, heard and silent, listed by change and by last heard.

import { allOf, anyOf, cancelled, entity, exists, notExists, type TxItem, transact } from './entity.js';
import { queryAll } from './query.js';
import { shardOf } from './shards.js';

/**
 * Now, as a router's `changed_at`: the wall clock (not a test's moved clock), which the front's
 * directory compares with its own, reading back with a margin (functions/routers/directory.ts).
 */
const changedNow = () => new Date().toISOString();

/**
 * A router registered to speak RADIUS for some of one reseller's NAS ids, with its own
 * credentials: a RadSec client certificate (its CN is `router_id`; only the serial of the
 * latest one issued is accepted) or, for a router with a fixed public address, a UDP secret
 * bound to that source address. FreeRADIUS authenticates the router; the API then checks the
 * NAS-Identifier it claims against `nas_ids`.
 */
export interface RouterRecord {
  router_id: string;
  reseller_id: string;
  name: string;
  /** The NAS ids this router may speak for (all of `reseller_id`). */
  nas_ids: string[];
  transport: RouterTransport;
  /** UDP: the source address its packets come from. */
  source_ip?: string;
  /** UDP: its secret, sealed (functions/routers/secret-box.ts); never returned by the API. */
  secret_box?: string;
  /** RadSec: serial (hex) of the one client certificate accepted. */
  cert_serial?: string;
  cert_not_after?: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
  /**
   * When a request of the router last reached the API (a login or an accounting report), to
   * HEARD_REFRESH_MS: written at most once per that interval (functions/routers/heard.ts).
   * Absent: never heard, whatever its status.
   */
  last_heard_at?: string;
  /** Set when the silence job found it silent (the `last_heard_at` it found); cleared when heard again. */
  silent_since?: string;
  /** The alert its silence raised, resolved when it is heard again. */
  silent_alert_id?: string;
  /**
   * When what the RADIUS front holds of it last changed (registered, revoked, new credentials,
   * NAS ids taken off): the front's router directory reads the routers changed since its last
   * read (functions/routers/directory.ts). Not moved by `last_heard_at`.
   */
  changed_at?: string;
}

/**
 * The partitions of the routers-by-last-heard index: every router heard moves its entry, so one
 * partition for all would be a hot one; a router's shard is a stable hash of its id.
 */
export const HEARD_SHARDS = 8;
const heardPartition = (shard: number) => `ROUTERS#HEARD#${shard}`;

export const ROUTER_TRANSPORTS = ['radsec', 'udp'] as const;
export type RouterTransport = (typeof ROUTER_TRANSPORTS)[number];

export const Router = entity<RouterRecord>('router')({
  key: (r: Pick<RouterRecord, 'router_id'>) => ({ pk: `ROUTER#${r.router_id}`, sk: 'ROUTER' }),
  indexes: {
    /** A reseller's routers, oldest first. */
    byReseller: { gsi: 'gsi1', pk: 'RESELLER#{reseller_id}#ROUTER', sk: '{created_at}#{router_id}' },
    /**
     * The routers watched for silence, by when they were last heard (sparse: heard at least once
     * and not found silent yet), in HEARD_SHARDS partitions. The silence job reads the entries
     * older than its threshold: those it has marked silent leave the index, so a run reads only
     * the routers that fell silent since the last one.
     */
    byLastHeard: {
      gsi: 'gsi2',
      composite: ['router_id', 'last_heard_at', 'silent_since'],
      pk: (r: Pick<RouterRecord, 'router_id'>) => heardPartition(shardOf(r.router_id, HEARD_SHARDS)),
      sk: (r: Pick<RouterRecord, 'router_id' | 'last_heard_at'>) => `${r.last_heard_at}#${r.router_id}`,
      when: (r: Pick<RouterRecord, 'last_heard_at' | 'silent_since'>) =>
        r.last_heard_at !== undefined && r.silent_since === undefined,
    },
    /**
     * Every router by when it last changed for the RADIUS front (one partition: routers change
     * a few times a day each, never per packet): the front's directory loads them all at start,
     * then those changed since its last read.
     */
    byChange: {
      gsi: 'gsi3',
      pk: 'ROUTERS#CHANGED',
      sk: '{changed_at}#{router_id}',
      when: (r: Pick<RouterRecord, 'changed_at'>) => r.changed_at !== undefined,
    },
  },
});

/**
 * The claim of a UDP source address (canonical: functions/core/ip.ts) by one reseller, and by
 * its active router there with what FreeRADIUS needs to define the client: one GetItem per
 * lookup. Created with the router; when the router is revoked the router's part goes (FreeRADIUS
 * no longer finds a client there) but the reseller keeps the address: another reseller cannot
 * register a router at an address one reseller registered, first come or not, while that
 * reseller may register a new router there. (A claim of before `reseller_id` was kept is the
 * first registrant's to take again.)
 */
export interface RouterAddress {
  source_ip: string;
  reseller_id?: string;
  router_id?: string;
  secret_box?: string;
}

export const RouterAddressClaim = entity<RouterAddress>('router_address')({
  key: (a: Pick<RouterAddress, 'source_ip'>) => ({ pk: `ROUTERIP#${a.source_ip}`, sk: 'ROUTERIP' }),
});

/**
 * Registers a router (and claims its address, for UDP). `address_taken` when the address is
 * another active router's, or another reseller's.
 */
// Access: TransactWriteItems: Put pk=ROUTER#<id> (attribute_not_exists), Put pk=ROUTERIP#<ip> (attribute_not_exists, or no router there and the same reseller's).
export async function createRouter(router: RouterRecord): Promise<'created' | 'address_taken'> {
  const items: Record<string, TxItem> = {
    router: Router.tx.create({ ...router, changed_at: router.changed_at ?? changedNow() }),
  };
  if (router.transport === 'udp' && router.source_ip && router.secret_box)
    items.address = RouterAddressClaim.tx.put(
      {
        source_ip: router.source_ip,
        reseller_id: router.reseller_id,
        router_id: router.router_id,
        secret_box: router.secret_box,
      },
      anyOf(
        notExists,
        allOf(
          RouterAddressClaim.where.lacks('router_id'),
          RouterAddressClaim.where.lacksOr(
            'reseller_id',
            RouterAddressClaim.where.is('reseller_id', router.reseller_id),
          ),
        ),
      ),
    );
  try {
    await transact(items);
    return 'created';
  } catch (error) {
    if (cancelled(error)?.failed('address')) return 'address_taken';
    throw error;
  }
}

// Access: GetItem pk=ROUTER#<id>, sk=ROUTER.
export const getRouter = (routerId: string): Promise<RouterRecord | undefined> =>
  Router.get({ router_id: routerId });

// Access: GetItem pk=ROUTERIP#<ip>, sk=ROUTERIP.
export const getRouterAddress = (sourceIp: string): Promise<RouterAddress | undefined> =>
  RouterAddressClaim.get({ source_ip: sourceIp });

// Access: Query byReseller (gsi1) gsi1pk=RESELLER#<id>#ROUTER.
export const routersOfReseller = (resellerId: string): Promise<RouterRecord[]> =>
  Router.queryIndexAll('byReseller', { reseller_id: resellerId });

/**
 * Revokes a router: its certificate and secret stop working (the API refuses it at once;
 * FreeRADIUS forgets a UDP client within its cache lifetime) and its address is freed for its
 * reseller's next router (no other reseller's). False when it was not active.
 */
// Access: TransactWriteItems: Update pk=ROUTER#<id> SET status=revoked (status = active), Update pk=ROUTERIP#<ip> REMOVE router_id, secret_box (router_id = id).
export async function revokeRouter(router: RouterRecord, nowIso: string): Promise<boolean> {
  const items: Record<string, TxItem> = {
    router: Router.tx.update(
      { router_id: router.router_id },
      { set: { status: 'revoked', revoked_at: nowIso, changed_at: changedNow() } },
      active,
    ),
  };
  // The router's part of its address claim goes; the reseller keeps the address.
  if (router.transport === 'udp' && router.source_ip)
    items.address = RouterAddressClaim.tx.update(
      { source_ip: router.source_ip },
      { set: { reseller_id: router.reseller_id }, remove: ['router_id', 'secret_box'] },
      RouterAddressClaim.where.is('router_id', router.router_id),
    );
  return transactOnRouter(items);
}

/**
 * Takes NAS ids off an active router's list (their VLAN or site was released, the router goes
 * on for its others). False when it was not active.
 */
// Access: UpdateItem pk=ROUTER#<id> SET nas_ids (condition status = active).
export const detachNasIds = (router: RouterRecord, remaining: string[]): Promise<boolean> =>
  transactOnRouter({
    router: Router.tx.update(
      { router_id: router.router_id },
      { set: { nas_ids: remaining, changed_at: changedNow() } },
      active,
    ),
  });

/**
 * New credentials for an active router: the certificate serial accepted (the previous
 * certificate is refused from now on), or the sealed UDP secret (router and address claim
 * together). False when the router is not active.
 */
// Access: TransactWriteItems: Update pk=ROUTER#<id> (status = active), Update pk=ROUTERIP#<ip> (router_id = id).
export async function replaceCredentials(
  router: RouterRecord,
  next: { cert_serial: string; cert_not_after: string } | { secret_box: string },
): Promise<boolean> {
  const items: Record<string, TxItem> = {};
  if ('cert_serial' in next) {
    items.router = Router.tx.update(
      { router_id: router.router_id },
      {
        set: { cert_serial: next.cert_serial, cert_not_after: next.cert_not_after, changed_at: changedNow() },
      },
      active,
    );
  } else {
    items.router = Router.tx.update(
      { router_id: router.router_id },
      { set: { secret_box: next.secret_box, changed_at: changedNow() } },
      active,
    );
    if (router.source_ip)
      items.address = RouterAddressClaim.tx.update(
        { source_ip: router.source_ip },
        { set: { secret_box: next.secret_box } },
        RouterAddressClaim.where.is('router_id', router.router_id),
      );
  }
  return transactOnRouter(items);
}

/** Runs a transaction on a router's items: false when the router's own condition refused it. */
async function transactOnRouter(items: Parameters<typeof transact>[0]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    if (cancelled(error)?.failed('router')) return false;
    throw error;
  }
}

/**
 * Records that a router was heard now, only if what is stored is what the caller read (its
 * `last_heard_at` and `silent_since`): of the requests that race with one stale read, one writes.
 * Clears the silence mark and its alert id (the caller resolves that alert). False when refused.
 */
// Access: UpdateItem pk=ROUTER#<id> SET last_heard_at REMOVE silent_since, silent_alert_id (condition: both as read); moves its byLastHeard (gsi2) entry.
export const markHeard = (router: RouterRecord, nowIso: string): Promise<boolean> =>
  Router.update(
    { router_id: router.router_id },
    {
      set: { last_heard_at: nowIso, silent_since: undefined, silent_alert_id: undefined },
      read: router,
    },
    asRead(router),
  );

/**
 * Marks a router found silent (its `last_heard_at` as read), with the alert raised for it: it
 * leaves the byLastHeard index. False when it was heard in between.
 */
// Access: UpdateItem pk=ROUTER#<id> SET silent_since, silent_alert_id (condition: last_heard_at as read, not silent); leaves byLastHeard (gsi2).
export const markSilent = (router: RouterRecord, alertId: string | undefined): Promise<boolean> =>
  Router.update(
    { router_id: router.router_id },
    {
      set: { silent_since: router.last_heard_at, ...(alertId ? { silent_alert_id: alertId } : {}) },
      read: router,
    },
    asRead({ ...router, silent_since: undefined }),
  );

/** The condition that the router's heard state is still what was read. */
function asRead(r: Pick<RouterRecord, 'last_heard_at' | 'silent_since'>) {
  const w = Router.where;
  return allOf(
    exists,
    r.last_heard_at ? w.is('last_heard_at', r.last_heard_at) : w.lacks('last_heard_at'),
    r.silent_since ? w.is('silent_since', r.silent_since) : w.lacks('silent_since'),
  );
}

/** The router is active (a transition's condition). */
const active = /* @__PURE__ */ Router.where.is('status', 'active');

/**
 * The routers changed at or after `sinceIso` (every router when undefined), oldest change first,
 * every page.
 */
// Access: Query byChange (gsi3) gsi3pk=ROUTERS#CHANGED [AND gsi3sk > <since>].
export const routersChangedSince = (sinceIso: string | undefined): Promise<RouterRecord[]> =>
  Router.queryIndexAll('byChange', {}, sinceIso ? { sk: { gt: sinceIso } } : {});

/** The watched routers last heard before `beforeIso`, every shard. */
// Access: Query byLastHeard (gsi2) gsi2pk=ROUTERS#HEARD#<shard> AND gsi2sk < <before>, HEARD_SHARDS queries.
export async function routersHeardBefore(beforeIso: string): Promise<RouterRecord[]> {
  const shards = await Promise.all(
    Array.from({ length: HEARD_SHARDS }, (_, shard) =>
      queryAll({ index: Router.indexes.byLastHeard.gsi, pk: heardPartition(shard), sk: { lt: beforeIso } }),
    ),
  );
  return shards.flat().map(Router.parse);
}

/** The watched routers heard at or after `sinceIso`, every shard: the ones alive now. */
// Access: Query byLastHeard (gsi2) gsi2pk=ROUTERS#HEARD#<shard> AND gsi2sk > <since>, HEARD_SHARDS queries.
export async function routersHeardSince(sinceIso: string): Promise<RouterRecord[]> {
  const shards = await Promise.all(
    Array.from({ length: HEARD_SHARDS }, (_, shard) =>
      queryAll({ index: Router.indexes.byLastHeard.gsi, pk: heardPartition(shard), sk: { gt: sinceIso } }),
    ),
  );
  return shards.flat().map(Router.parse);
}
