// What the RADIUS core reads and writes, as a port: the table's store and an edge's replica store implement it.

import type { AccessCode } from '../store/access-codes.js';
import type { SeenAddress } from '../store/hotspot-addresses.js';
import type { NasRecord } from '../store/nas.js';
import type { PppoePlan, PppoeSessionCount, PppoeSubscriber } from '../store/pppoe.js';
import type { BudgetCount } from '../store/rate-limit.js';
import type { RouterRecord } from '../store/routers.js';
import type { InterimReport, RadiusSession, ReportNext } from '../store/sessions.js';
import type { Refusal } from './attributes.js';
import type { GuessCounter, GuessGate } from './guesses.js';

/**
 * What the RADIUS core (functions/radius/caller.ts, login.ts, accounting.ts) reads and writes,
 * and nothing else: one port, two implementations. The region's is the table
 * (functions/radius/table-store.ts, through functions/store); an in-country edge's is its replica
 * in memory during a cut (functions/edge-service/replica-store.ts). The core's decisions are
 * the same functions over either: a login, a report and a router are decided once, here.
 *
 * Every write that depends on a read is conditioned on what was read (false: read again).
 */
export interface RadiusStore {
  /**
   * The router a request names and the NAS it claims, as held in memory (either may be absent);
   * `listed`: the router as a list kept current in the background holds it (the front's
   * directory), which may refuse it for good without a read.
   */
  heldCaller(
    routerId: string,
    nasId: string,
  ): { router?: RouterRecord; nas?: NasRecord; listed?: RouterRecord };
  /** The same, read now (and held, where the store holds them): functions/radius/caller.ts. */
  readCaller(routerId: string, nasId: string): Promise<{ router?: RouterRecord; nas?: NasRecord }>;
  /** The router's own traffic reached the core: "last heard" (functions/routers/heard.ts). */
  heard(router: RouterRecord, nowMs: number): Promise<void>;

  /** A login's reads, together: the code, the hotspot, the guess counters and the router's last seen address. */
  loginReads(
    keys: {
      code?: string;
      nasId?: string;
      counters: readonly GuessCounter[];
      seen?: Pick<SeenAddress, 'address' | 'router_id'>;
    },
    nowMs: number,
  ): Promise<{
    code?: AccessCode;
    nas?: NasRecord;
    counts: (BudgetCount | undefined)[];
    seen?: SeenAddress;
  }>;
  /** The codes a device's MAC is bound to at a reseller (MAC login). */
  bindings(resellerId: string, mac: string): Promise<string[]>;
  /** These codes as stored now (those that exist), in the order asked. */
  codes(names: readonly string[]): Promise<AccessCode[]>;
  /** A login's lease and data grant, conditioned on the code's `devices_version` as read. */
  claimDevice(claim: DeviceClaim): Promise<boolean>;
  /**
   * The guess budgets' say on a login by a typed code, as decided (functions/radius/guesses.ts,
   * `gateLogin`): counts a wrong code; past a budget, the same refusal whatever the code;
   * `counts` as read with the code. Undefined: nothing to say (nothing a guess is about).
   */
  gateLogin(
    counters: readonly GuessCounter[],
    counts: readonly (BudgetCount | undefined)[],
    nowMs: number,
    login: { code: AccessCode | undefined; refused: Refusal | undefined; device: string },
  ): Promise<GuessGate | undefined>;
  noteSeen(seen: SeenAddress): Promise<void>;
  /** The sessions of devices a typed login took the place of are cut (a Disconnect each). */
  cutDevices(code: AccessCode, devices: readonly string[], nowMs: number): Promise<void>;

  /**
   * An Interim-Update in one write when it is a plain later report of an open session (see
   * functions/store/sessions.ts, `interimInOneWrite`); else nothing is written and the session
   * is answered as stored (undefined: none).
   */
  interim(
    report: InterimReport,
    nowIso: string,
  ): Promise<{ stored: true } | { stored: false; read?: RadiusSession }>;
  /** A report's session and its code, together. */
  reportReads(sessionId: string, code: string): Promise<{ session?: RadiusSession; code?: AccessCode }>;
  /** A session's first report: the session, and its bytes and device's lease on its code. False: it exists (read again). */
  openSession(session: RadiusSession, lease: number, reserved: boolean): Promise<boolean>;
  /** A later report (see `reportItems`): false when the session or its code changed since the read. */
  writeReport(
    read: RadiusSession,
    next: ReportNext,
    reserved: boolean,
    /** What the code counted of the session as read (see `countedEntryOf`); absent: no code. */
    counted?: { asRead: number | undefined },
  ): Promise<boolean>;
  /** The open sessions of a NAS that restarted (Accounting-On/Off), its holder's only. */
  closeNas(
    nasId: string,
    nowMs: number,
    resellerId: string | undefined,
  ): Promise<{ closed: number; deferred: number }>;
  /** The session of this id, as stored now (a MAC login's code). */
  session(id: string): Promise<RadiusSession | undefined>;
  /** The code's data is used up by `added` more bytes: its other sessions are cut. */
  usedUp(code: AccessCode, added: number, sessionId: string, nowMs: number): Promise<void>;

  /**
   * A PPPoE login's reads (functions/radius/pppoe.ts): the subscriber holding the user name, its
   * plan and the hotspot asking. `unavailable`: this store holds no subscribers (an edge's
   * replica), and the login is refused with a reason rather than as unknown.
   */
  subscriberLogin(
    username: string,
    nasId: string,
  ): Promise<{ subscriber?: PppoeSubscriber; plan?: PppoePlan; nas?: NasRecord } | 'unavailable'>;
  /** What accounting counted of a PPPoE session so far (undefined: nothing). */
  pppoeCounted(subscriberId: string, sessionId: string): Promise<number | undefined>;
  /** A PPPoE session's new total counted once toward its subscriber's period (false: it moved since `asRead`). */
  countPppoe(count: PppoeSessionCount, asRead: number | undefined): Promise<boolean>;
}

/** A login written: the code's devices, grants and MAC leases as the decision left them. */
export interface DeviceClaim {
  code: AccessCode;
  devices: Record<string, number>;
  grants: Record<string, number>;
  macLeases: Record<string, number>;
  nowIso: string;
  expiresAt: string;
  nasId: string;
}

/** The settings the core decides with (the region's from its environment, an edge's its own). */
export interface RadiusRules {
  leaseS: number;
  interimS: number;
  macSessionS: number;
  macAuthPassword: string;
}

/** One exchange: the store it goes through, the time it is decided at, and the rules. */
export interface Exchange {
  store: RadiusStore;
  nowMs: number;
  rules: RadiusRules;
}
