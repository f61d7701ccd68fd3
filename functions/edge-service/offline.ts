// The edge's decisions while the region is unreachable: logins and accounting answered from its replica.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Replica, ReplicaCode, ReplicaPage } from '../edge/replica.js';
import {
  accountingExchange,
  authorizeExchange,
  postAuthExchange,
  type RestAnswer,
} from '../radius/exchange.js';
import type { Exchange } from '../radius/port.js';
import { radiusSettings } from '../radius/settings.js';
import { atomicWrite } from './journal.js';
import { type EdgeData, replicaStore } from './replica-store.js';

/**
 * What the edge knows of its hotspots, and the decisions it makes from it while the region cannot
 * be reached (docs/outage.md). The replica (functions/edge/replica.ts) is the region's view at
 * its last sync; on top of it the edge keeps what it saw itself, forwarded or not: each
 * session's running totals, each code's devices holding a lease here, and the bytes counted here
 * that the region has not taken yet (functions/edge-service/replica-store.ts).
 *
 * The region's own exchanges decide (functions/radius/exchange.ts: the router judged, the login,
 * the accounting), over that store instead of the table: the same code, not a copy. What differs
 * is what a cut leaves the edge to know (see replica-store.ts) and one text: a code unknown here
 * is refused with the message of the cut.
 */

/** The text a code sold after the cut (or unknown here) is refused with. */
const CUT_MESSAGE = 'Réseau national coupé : seuls les codes déjà achetés fonctionnent';

/** Sessions with no report for this long are forgotten (a session lasts a forfait at most). */
const FORGET_AFTER_MS = 2 * 24 * 3_600_000;

export class EdgeState {
  private readonly file: string;
  /** The replica, in its own file: written at a sync, not with each login's lease. */
  private readonly replicaFile: string;
  private state: EdgeData;

  constructor(
    dir: string,
    private readonly leaseMs: number,
    private readonly interimS: number,
  ) {
    this.file = join(dir, 'state.json');
    this.replicaFile = join(dir, 'replica.json');
    const stored = existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as Partial<EdgeData>)
      : {};
    // An edge installed before the replica had its own file kept it in the state's.
    const replica = existsSync(this.replicaFile)
      ? (JSON.parse(readFileSync(this.replicaFile, 'utf8')) as Replica)
      : stored.replica;
    this.state = {
      sessions: stored.sessions ?? {},
      codes: stored.codes ?? {},
      byCode: new Map(),
    };
    if (replica) this.hold(replica);
  }

  /** The replica held, its codes by name (a login looks one up among a national stock). */
  private hold(replica: Replica): void {
    this.state.replica = replica;
    this.state.byCode = new Map(replica.codes.map((c) => [c.code, c]));
  }

  private timer: NodeJS.Timeout | undefined;

  /**
   * Written whole (atomic rename) within a second of a change. The journal, not this file, is
   * what the region is owed: losing the last second of it on a crash only loses a lease or some
   * bytes counted against a code here until the next sync.
   */
  save(): void {
    this.timer ??= setTimeout(() => this.flush(), 1000);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    atomicWrite(this.file, JSON.stringify({ sessions: this.state.sessions, codes: this.state.codes }));
  }

  get replica(): Replica | undefined {
    return this.state.replica;
  }

  /** Where the next sync starts (the changes since), once a first sync was whole. */
  cursor(): string | undefined {
    return this.state.replica?.cursor;
  }

  /**
   * A sync's pages (functions/edge/replica.ts), taken once the journal is empty: a first sync's
   * codes replace the replica's, a later one's update them (the codes it says ended leave).
   */
  take(pages: readonly ReplicaPage[]): void {
    const first = pages[0];
    if (!first) return;
    // A region not yet speaking in pages answers a whole replica with neither: a first sync.
    const codes: Map<string, ReplicaCode> =
      first.kind !== 'changes' || !this.state.byCode ? new Map() : this.state.byCode;
    for (const page of pages) {
      for (const c of page.codes) codes.set(c.code, c);
      for (const name of (page.removed as string[] | undefined) ?? []) codes.delete(name);
    }
    const cursor = pages.at(-1)?.cursor;
    this.replace({
      edge_id: first.edge_id,
      generated_at: first.generated_at,
      routers: first.routers ?? this.state.replica?.routers ?? [],
      nas: first.nas ?? this.state.replica?.nas ?? [],
      codes: [...codes.values()],
      ...(cursor ? { cursor } : {}),
    });
  }

  /**
   * A new replica, taken once the journal is empty: what was counted and started here is in it
   * now. The leases and the sessions' totals stay (the replica has no devices); sessions silent
   * for two days, and what this edge kept of codes no longer in the replica, are forgotten.
   */
  replace(replica: Replica): void {
    this.hold(replica);
    const held = this.state.byCode;
    for (const [name, h] of Object.entries(this.state.codes)) {
      h.unsynced = 0;
      delete h.started_at;
      delete h.expires_at;
      const leased = Object.keys(h.devices).length > 0;
      if (!held?.has(name) && !leased) delete this.state.codes[name];
    }
    const before = Date.parse(replica.generated_at) - FORGET_AFTER_MS;
    for (const [id, s] of Object.entries(this.state.sessions))
      if (Date.parse(s.last_report_at) < before) delete this.state.sessions[id];
    atomicWrite(this.replicaFile, JSON.stringify(replica));
    this.flush();
  }

  /** Forgets everything (the region refused this edge's credentials: it was revoked). */
  wipe(): void {
    this.state = { sessions: {}, codes: {}, byCode: new Map() };
    atomicWrite(this.replicaFile, 'null');
    this.flush();
  }

  /** The client definition of a UDP router at this source address (FreeRADIUS's lookup). */
  client(sourceIp: string): Record<string, unknown> | undefined {
    const router = this.state.replica?.routers.find((r) => r.transport === 'udp' && r.source_ip === sourceIp);
    if (!router?.secret) return undefined;
    const literal = (value: string) => ({ value, do_xlat: false });
    return {
      'control:FreeRADIUS-Client-IP-Address': literal(sourceIp),
      'control:FreeRADIUS-Client-Secret': literal(router.secret),
      'control:FreeRADIUS-Client-Shortname': literal(router.router_id),
      'control:FreeRADIUS-Client-NAS-Type': literal('other'),
      'control:FreeRADIUS-Client-Require-MA': literal('yes'),
    };
  }

  /** The region's exchange, over this edge's store. `counts`: reports count against codes here. */
  private exchange(nowMs: number, counts: boolean, learnFor?: string): Exchange {
    const s = radiusSettings();
    return {
      store: replicaStore(this.state, { counts, changed: () => this.save(), learnFor }),
      nowMs,
      rules: {
        leaseS: Math.round(this.leaseMs / 1000),
        interimS: this.interimS,
        macSessionS: s.RADIUS_MAC_SESSION_S,
        macAuthPassword: s.RADIUS_MAC_AUTH_PASSWORD,
      },
    };
  }

  /**
   * Authorize decided here (the region unreachable), as the region's: a PAP login from a
   * configuration that takes it is checked and recorded at once (`recorded`); otherwise the
   * password to check (CHAP), and post-auth records the login. Answers the REST status and body.
   */
  async login(
    attrs: Map<string, string>,
    nowMs: number,
  ): Promise<{ status: number; body: Record<string, unknown>; recorded: boolean }> {
    const a = await authorizeExchange(attrs, this.exchange(nowMs, true));
    return {
      status: a.status,
      body: cut(a),
      recorded: a.decision?.accept === true && a.decision.recorded === true,
    };
  }

  /** Post-auth decided here: the login decided again and recorded, as the region's. */
  async postAuth(
    attrs: Map<string, string>,
    nowMs: number,
  ): Promise<{ status: number; body: Record<string, unknown>; recorded: boolean }> {
    const a = await postAuthExchange(attrs, this.exchange(nowMs, true));
    return { status: a.status, body: cut(a), recorded: a.decision?.accept === true };
  }

  /**
   * An accounting report seen here, as the region's accounting takes it: `journaled` (not taken
   * by the region yet), its growth counts against the code here; forwarded, the edge learns the
   * session's totals and its device's lease only.
   */
  async account(attrs: Map<string, string>, nowMs: number, journaled: boolean): Promise<void> {
    // The region answered it: a code sold since the last sync is learnt of until the next one
    // brings it (every live code of the edge's resellers is in the replica).
    const learnFor = journaled
      ? undefined
      : this.state.replica?.routers.find((r) => r.router_id === attrs.get('Hotspot-Router-Id'))?.reseller_id;
    await accountingExchange(attrs, this.exchange(nowMs, journaled, learnFor));
  }
}

/** The answer's body, a code unknown here refused with the message of the cut. */
function cut(a: RestAnswer): Record<string, unknown> {
  const reason = a.decision && !a.decision.accept ? a.decision.reason : undefined;
  if (reason !== 'unknown_code' && reason !== 'wrong_hotspot') return a.body ?? {};
  return {
    ...a.body,
    'reply:Reply-Message': { value: CUT_MESSAGE, do_xlat: false },
  };
}
