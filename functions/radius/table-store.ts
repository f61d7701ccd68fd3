// The RADIUS core's store over the table: its reads in one BatchGetItem each, its writes conditioned on them.

import { bookings, voucherSale } from '../billing/ledger.js';
import { log } from '../core/log.js';
import { routerDirectory } from '../routers/directory.js';
import { noteHeard } from '../routers/heard.js';
import { Access, type AccessCode, claimDevice } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { noteSeenAddress, SeenAddressEntity } from '../store/hotspot-addresses.js';
import { bindingsOfMac } from '../store/mac-bindings.js';
import { getNas, Nas, type NasRecord } from '../store/nas.js';
import { countSessionBytes, getSessionCount, subscriberOfLogin } from '../store/pppoe.js';
import { Router, type RouterRecord } from '../store/routers.js';
import { getSession, interimInOneWrite, openSessionItems, reportItems, Session } from '../store/sessions.js';
import { transactIfCurrent } from '../store/transact.js';
import { closeSessionsOfNas } from './closing.js';
import { disconnectDevice, disconnectOthersWhenUsedUp } from './disconnect.js';
import { gateLogin, guessReads } from './guesses.js';
import type { Exchange, RadiusStore } from './port.js';
import { radiusSettings } from './settings.js';

/**
 * The region's store of the RADIUS core (functions/radius/port.ts): the table, through
 * functions/store. Every read of a login or a report is one BatchGetItem, strongly consistent
 * (the write after it is conditioned on it).
 *
 * The routers and NAS ids requests name are held as read, for RADIUS_ROUTER_HOLD_S, the one
 * cache of the judgement of every request (functions/radius/caller.ts): a held router's request
 * reads nothing to be judged, and a revoked router or a released NAS id is refused within that
 * time. The front's directory (functions/routers/directory.ts, every router in memory, current
 * within ROUTERS_REFRESH_MS) is offered too (`listed`): what it alone can refuse for good needs no
 * read.
 */
const held = {
  routers: new Map<string, { at: number; router: RouterRecord | undefined }>(),
  nas: new Map<string, { at: number; nas: NasRecord | undefined }>(),
};

/** Entries kept at most (a process is asked about its own region's routers: this is a bound, not a size). */
const HELD_MAX = 50_000;

function fresh<T>(entry: { at: number } | undefined, value: (e: never) => T): T | undefined {
  const holdMs = radiusSettings().RADIUS_ROUTER_HOLD_S * 1000;
  return entry && Date.now() - entry.at < holdMs ? value(entry as never) : undefined;
}

function hold(router: RouterRecord | undefined, routerId: string, nas: NasRecord | undefined, nasId: string) {
  if (radiusSettings().RADIUS_ROUTER_HOLD_S <= 0) return;
  if (held.routers.size >= HELD_MAX) held.routers.clear();
  if (held.nas.size >= HELD_MAX) held.nas.clear();
  const at = Date.now();
  held.routers.set(routerId, { at, router });
  held.nas.set(nasId, { at, nas });
}

export const tableStore: RadiusStore = {
  heldCaller(routerId, nasId) {
    const router = fresh(held.routers.get(routerId), (e: { router: RouterRecord | undefined }) => e.router);
    const nas = fresh(held.nas.get(nasId), (e: { nas: NasRecord | undefined }) => e.nas);
    const listed = routerDirectory()?.router(routerId);
    return { ...(router ? { router } : {}), ...(nas ? { nas } : {}), ...(listed ? { listed } : {}) };
  },

  async readCaller(routerId, nasId) {
    const [router, nas] = await batchGet(
      [
        [Router, { router_id: routerId }],
        [Nas, { nas_id: nasId }],
      ],
      { consistent: true },
    );
    hold(router, routerId, nas, nasId);
    return { ...(router ? { router } : {}), ...(nas ? { nas } : {}) };
  },

  heard: async (router, nowMs) => void (await noteHeard(router, nowMs)),

  async loginReads(keys, nowMs) {
    type Reads = Parameters<typeof batchGet>[0][number][];
    const reads: Reads = [
      ...guessReads([...keys.counters], nowMs),
      ...(keys.seen ? [[SeenAddressEntity, keys.seen] as const] : []),
      ...(keys.code !== undefined ? [[Access, { code: keys.code }] as const] : []),
      ...(keys.nasId !== undefined ? [[Nas, { nas_id: keys.nasId }] as const] : []),
    ];
    const got: unknown[] = reads.length > 0 ? await batchGet(reads, { consistent: true }) : [];
    let at = keys.counters.length;
    const seen = keys.seen ? got[at++] : undefined;
    const code = keys.code !== undefined ? got[at++] : undefined;
    const nas = keys.nasId !== undefined ? got[at++] : undefined;
    return {
      counts: got.slice(0, keys.counters.length) as { n?: number }[],
      ...(seen ? { seen: seen as never } : {}),
      ...(code ? { code: code as AccessCode } : {}),
      ...(nas ? { nas: nas as NasRecord } : {}),
    };
  },

  bindings: async (resellerId, mac) => (await bindingsOfMac(resellerId, mac)).map((b) => b.code),

  async codes(names) {
    if (names.length === 0) return [];
    const got = await batchGet(
      names.map((code) => [Access, { code }] as const),
      { consistent: true },
    );
    return got.filter((c) => c !== undefined);
  },

  claimDevice(claim) {
    // A voucher's first use redeems it, as the API's redemption would: its sale is booked once
    // (the claim marks the voucher, which is the code, redeemed).
    const firstUse =
      !claim.code.started_at && claim.code.source === 'voucher'
        ? bookings(voucherSale(claim.code, claim.nasId), claim.nowIso)
        : undefined;
    return claimDevice({ ...claim, ...(firstUse ? { firstUse } : {}) });
  },

  gateLogin: (counters, counts, nowMs, login) => gateLogin([...counters], [...counts], nowMs, login),

  async noteSeen(seen) {
    // Never throws: the login must not depend on it.
    try {
      await noteSeenAddress(seen);
    } catch (error) {
      log.warn('router address not recorded', { routerId: seen.router_id, error: (error as Error).name });
    }
  },

  async cutDevices(code, devices, nowMs) {
    for (const device of devices) await disconnectDevice(code, device, 'device_evicted', nowMs);
  },

  interim: (report, nowIso) => interimInOneWrite(report, nowIso),

  async reportReads(sessionId, code) {
    const [session, stored] = await batchGet(
      [
        [Session, { id: sessionId }],
        [Access, { code }],
      ],
      { consistent: true },
    );
    return { ...(session ? { session } : {}), ...(stored ? { code: stored } : {}) };
  },

  // Not counted here: the table's stream consumer counts it (functions/radius/session-counts.ts),
  // usually within a second, or its next report does if that comes first (`reportItems`).
  openSession: (session, lease, reserved) =>
    transactIfCurrent(openSessionItems(session, lease, {}, reserved), 'session'),

  writeReport: (read, next, reserved, counted) =>
    transactIfCurrent(reportItems(read, next, reserved, counted), ['session', 'code']),

  closeNas: (nasId, nowMs, resellerId) => closeSessionsOfNas(nasId, nowMs, { resellerId }),

  session: (id) => getSession(id),

  usedUp: (code, added, sessionId, nowMs) => disconnectOthersWhenUsedUp(code, added, sessionId, nowMs),

  async subscriberLogin(username, nasId) {
    const [found, nas] = await Promise.all([subscriberOfLogin(username), getNas(nasId)]);
    return { ...found, ...(nas ? { nas } : {}) };
  },

  pppoeCounted: async (subscriberId, sessionId) =>
    (await getSessionCount(subscriberId, sessionId))?.total_bytes,

  countPppoe: (count, asRead) => countSessionBytes(count, asRead),
};

/** The region's exchange at `nowMs`: the table, and the settings of its environment. */
export function regionExchange(nowMs: number): Exchange {
  const s = radiusSettings();
  return {
    store: tableStore,
    nowMs,
    rules: {
      leaseS: s.RADIUS_LEASE_S,
      interimS: s.RADIUS_INTERIM_S,
      macSessionS: s.RADIUS_MAC_SESSION_S,
      macAuthPassword: s.RADIUS_MAC_AUTH_PASSWORD,
    },
  };
}
