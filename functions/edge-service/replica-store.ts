// The RADIUS core's store over an edge's replica and what the edge saw itself, for its decisions during a cut.

import type { Replica, ReplicaCode } from '../edge/replica.js';
import { type GuessCounter, type GuessPlaces, gateLogin } from '../radius/guesses.js';
import type { RadiusStore } from '../radius/port.js';
import type { AccessCode } from '../store/access-codes.js';
import type { NasRecord } from '../store/nas.js';
import { type BudgetCount, windowStartOf } from '../store/rate-limit.js';
import type { RouterRecord } from '../store/routers.js';
import { type RadiusSession, reportChange } from '../store/sessions.js';

/**
 * An in-country edge's store of the RADIUS core (functions/radius/port.ts): its replica of the
 * region (functions/edge/replica.ts) and, on top of it, what the edge saw itself, in memory
 * (persisted by functions/edge-service/offline.ts). The core decides on it exactly as on the
 * table: the same login, the same device rule, the same accounting.
 *
 * Two limits of a cut hold here: devices are counted at this edge only, and a code sold after
 * the last sync is unknown. Wrong codes are counted in memory under the region's budgets
 * (`memoryPlaces`). Nothing the region alone can do is done (no Disconnect-Request, no MAC
 * bindings: a MAC login is refused, and the router shows its page; no guessing alert; no PPPoE
 * subscribers: a PPPoE login is refused as unavailable).
 */
export interface EdgeData {
  replica?: Replica;
  /** Sessions seen at this edge (forwarded or decided here), as the core keeps them. */
  sessions: Record<string, RadiusSession>;
  /** What this edge adds to each replica code. */
  codes: Record<string, CodeHere>;
  /** The replica's codes by name (not stored: built from the replica). */
  byCode?: Map<string, ReplicaCode>;
  /**
   * The guess counters of a cut, by scope, subject and window (not stored: a restart gives every
   * device its budget again, at most once per restart).
   */
  guesses?: Map<string, { n: number; ends: number }>;
}

/** Counters kept before the ended ones are swept (a flood of MACs stays bounded). */
const GUESS_KEPT = 10_000;

const guessKey = (c: GuessCounter, nowMs: number) =>
  `${c.window.scope}#${c.subject}#${windowStartOf(c.window, nowMs)}`;

/**
 * The guess budgets in the edge's memory, under the region's rules (functions/radius/guesses.ts:
 * the same counters, limits and answers; a place taken below the limit, as the table's
 * conditional ADD). A device used a card when one of its sessions seen here was on it. No alert
 * reaches the reseller during a cut.
 */
function memoryPlaces(data: EdgeData): GuessPlaces {
  data.guesses ??= new Map();
  const counts = data.guesses;
  return {
    async take(c, nowMs) {
      if (counts.size > GUESS_KEPT) for (const [k, v] of counts) if (v.ends <= nowMs) counts.delete(k);
      const key = guessKey(c, nowMs);
      const held = counts.get(key) ?? { n: 0, ends: windowStartOf(c.window, nowMs) + c.window.windowMs };
      if (held.n >= c.window.limit) return undefined;
      held.n += 1;
      counts.set(key, held);
      return { n: held.n, ends_at: held.ends };
    },
    async giveBack(c, nowMs) {
      const held = counts.get(guessKey(c, nowMs));
      if (held && held.n > 0) held.n -= 1;
    },
    usedBy: async (code, device) =>
      Object.values(data.sessions).some((s) => s.code === code && s.device === device),
    // Login passes are the region's (a signed-in subscriber's, on the portal): none at a cut edge.
    passed: async () => false,
    flood: async () => undefined,
  };
}

/** The counters as held now, in the order asked. */
const heldCounts = (
  data: EdgeData,
  counters: readonly GuessCounter[],
  nowMs: number,
): (BudgetCount | undefined)[] =>
  counters.map((c) => {
    const held = data.guesses?.get(guessKey(c, nowMs));
    return held ? { n: held.n, ends_at: held.ends } : undefined;
  });

/** A code as this edge knows more of it than its replica does. */
export interface CodeHere {
  /** Devices holding a lease at this edge (epoch seconds), their data reservations, MAC logins. */
  devices: Record<string, number>;
  grants?: Record<string, number>;
  mac_leases?: Record<string, number>;
  devices_version: number;
  /** Bytes counted here and not in the replica yet (journaled, not taken by the region). */
  unsynced: number;
  /** Its clock, started here (a voucher first used during the cut; the region starts it again at the replay). */
  started_at?: string;
  expires_at?: string;
}

const here = (data: EdgeData, code: string): CodeHere =>
  (data.codes[code] ??= { devices: {}, devices_version: 0, unsynced: 0 });

/** The replica's code as the region's rules read it, with what this edge counted and started. */
function codeOf(data: EdgeData, c: ReplicaCode): AccessCode {
  const h = data.codes[c.code];
  const started = c.started_at ?? h?.started_at;
  const ends = c.expires_at ?? h?.expires_at;
  return {
    code: c.code,
    reseller_id: c.reseller_id,
    source: c.source ?? 'payment',
    source_id: '',
    forfait_id: '',
    offer: c.offer,
    created_at: '',
    ...(c.use_by ? { use_by: c.use_by } : {}),
    ...(started ? { started_at: started } : {}),
    ...(ends ? { expires_at: ends } : {}),
    used_bytes: c.used_bytes + (h?.unsynced ?? 0),
    devices: { ...h?.devices },
    ...(h?.grants ? { grants: { ...h.grants } } : {}),
    ...(h?.mac_leases ? { mac_leases: { ...h.mac_leases } } : {}),
    devices_version: h?.devices_version ?? 0,
  };
}

/**
 * The store over `data`. `counts`: a report's bytes count against its code here (journaled: the
 * region has not taken it); a report the region answered (`false`) only teaches the edge the
 * session's totals and its device's lease, of a code the replica may not hold yet (bought by
 * mobile money, used here for the first time: `learnFor`, the router's reseller, stands for its
 * owner until the next sync brings it). `changed` is called after each write.
 */
export function replicaStore(
  data: EdgeData,
  options: { counts: boolean; changed: () => void; learnFor?: string | undefined },
): RadiusStore {
  const codeNamed = (name: string) => {
    data.byCode ??= new Map(data.replica?.codes.map((r) => [r.code, r]));
    const c = data.byCode.get(name);
    if (c) return codeOf(data, c);
    if (options.learnFor === undefined) return undefined;
    const offer = { duration_hours: 0, data_limit_mb: 0, cir_kbps: 0, mir_kbps: 0, max_devices: 1 };
    return codeOf(data, { code: name, reseller_id: options.learnFor, offer, used_bytes: 0 });
  };
  const caller = (routerId: string, nasId: string) => {
    const r = data.replica?.routers.find((x) => x.router_id === routerId);
    const n = data.replica?.nas.find((x) => x.nas_id === nasId);
    const router: RouterRecord | undefined = r && {
      router_id: r.router_id,
      reseller_id: r.reseller_id,
      name: '',
      nas_ids: r.nas_ids,
      transport: r.transport,
      ...(r.source_ip ? { source_ip: r.source_ip } : {}),
      ...(r.cert_serial ? { cert_serial: r.cert_serial } : {}),
      // The replica holds active routers only.
      status: 'active',
      created_at: '',
    };
    const nas: NasRecord | undefined = n && {
      nas_id: n.nas_id,
      reseller_id: n.reseller_id,
      reseller_name: '',
      vlan_id: 0,
      kind: 'vlan',
      vendor: n.vendor,
    };
    return { ...(router ? { router } : {}), ...(nas ? { nas } : {}) };
  };
  /** A device's lease or its release, and the bytes a report adds, on the code here. */
  const onCode = (s: RadiusSession, lease: number | 'release', added: number, reserved: boolean) => {
    const h = here(data, s.code);
    if (lease === 'release') delete h.devices[s.device];
    else h.devices[s.device] = lease;
    if (added > 0 && options.counts) h.unsynced += added;
    if (added > 0 && reserved) h.grants = { ...h.grants, [s.device]: (h.grants?.[s.device] ?? 0) - added };
  };
  return {
    heldCaller: caller,
    readCaller: async (routerId, nasId) => caller(routerId, nasId),
    heard: async () => undefined,
    loginReads: async (keys, nowMs) => {
      const code = keys.code === undefined ? undefined : codeNamed(keys.code);
      const nas = keys.nasId === undefined ? undefined : caller('', keys.nasId).nas;
      return {
        counts: heldCounts(data, keys.counters, nowMs),
        ...(code ? { code } : {}),
        ...(nas ? { nas } : {}),
      };
    },
    bindings: async () => [],
    codes: async (names) => names.map(codeNamed).filter((c) => c !== undefined),
    async claimDevice(claim) {
      const h = here(data, claim.code.code);
      if (h.devices_version !== claim.code.devices_version) return false;
      h.devices = claim.devices;
      h.grants = claim.grants;
      h.mac_leases = claim.macLeases;
      h.devices_version += 1;
      if (!claim.code.started_at) {
        h.started_at = claim.nowIso;
        h.expires_at = claim.expiresAt;
      }
      options.changed();
      return true;
    },
    gateLogin: (counters, counts, nowMs, login) =>
      gateLogin([...counters], [...counts], nowMs, login, memoryPlaces(data)),
    noteSeen: async () => undefined,
    cutDevices: async () => undefined,
    interim: async (report) => {
      const read = data.sessions[report.uniqueId];
      return { stored: false, ...(read ? { read } : {}) };
    },
    reportReads: async (sessionId, name) => {
      const session = data.sessions[sessionId];
      const code = codeNamed(name);
      return { ...(session ? { session } : {}), ...(code ? { code } : {}) };
    },
    async openSession(session, lease, reserved) {
      if (data.sessions[session.id]) return false;
      data.sessions[session.id] = session;
      onCode(session, session.status === 'open' ? lease : 'release', session.total_bytes, reserved);
      options.changed();
      return true;
    },
    async writeReport(read, next, reserved, counted) {
      const now = data.sessions[read.id];
      const same =
        now?.total_bytes === read.total_bytes &&
        now.status === read.status &&
        now.session_time_s === read.session_time_s &&
        now.event_time === read.event_time;
      if (!same) return false;
      const change = reportChange(read, next, counted);
      data.sessions[read.id] = { ...now, ...change.set } as RadiusSession;
      onCode(read, change.open ? next.lease : 'release', change.added, reserved);
      options.changed();
      return true;
    },
    async closeNas(nasId, nowMs, resellerId) {
      const nowIso = new Date(nowMs).toISOString();
      let closed = 0;
      for (const s of Object.values(data.sessions)) {
        if (s.nas_id !== nasId || s.status !== 'open' || (resellerId && s.reseller_id !== resellerId))
          continue;
        data.sessions[s.id] = { ...s, status: 'closed', closed_at: nowIso, close_reason: 'nas_restart' };
        onCode(s, 'release', 0, false);
        closed += 1;
      }
      options.changed();
      return { closed, deferred: 0 };
    },
    session: async (id) => data.sessions[id],
    usedUp: async () => undefined,
    // PPPoE subscribers are not in the replica (it carries codes, routers and NAS ids): during a
    // cut a PPPoE login is refused with its own reason, and a PPPoE report is left to the
    // region, which counts it when the edge's journal is replayed.
    subscriberLogin: async () => 'unavailable',
    pppoeCounted: async () => undefined,
    countPppoe: async () => true,
  };
}
