// The edge's decisions while the region is unreachable: logins and accounting answered from its replica.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Replica } from '../edge/replica.js';
import { normalizeCode } from '../radius/attributes.js';
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

/** What the region takes as a code's name (the replica's `codes`). */
const CODE = /^[A-Z0-9]{1,64}$/;

/** Sessions with no report for this long are forgotten (a session lasts a forfait at most). */
const FORGET_AFTER_MS = 2 * 24 * 3_600_000;

export class EdgeState {
  private readonly file: string;
  private state: EdgeData;

  constructor(
    dir: string,
    private readonly leaseMs: number,
    private readonly interimS: number,
  ) {
    this.file = join(dir, 'state.json');
    const stored = existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as Partial<EdgeData>)
      : {};
    this.state = {
      ...(stored.replica ? { replica: stored.replica } : {}),
      sessions: stored.sessions ?? {},
      codes: stored.codes ?? {},
      ...(stored.named ? { named: stored.named } : {}),
    };
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
    atomicWrite(this.file, JSON.stringify(this.state));
  }

  get replica(): Replica | undefined {
    return this.state.replica;
  }

  /** The codes seen here, which the next sync names so that they stay current. */
  seenCodes(): string[] {
    const codes = [...(this.state.named ?? []), ...Object.values(this.state.sessions).map((s) => s.code)];
    return [...new Set(codes)].filter((c) => CODE.test(c));
  }

  /**
   * A new replica, taken once the journal is empty: what was counted and started here is in it
   * now. The leases and the sessions' totals stay (the replica has no devices); sessions silent
   * for two days are forgotten.
   */
  replace(replica: Replica): void {
    this.state.replica = replica;
    for (const h of Object.values(this.state.codes)) {
      h.unsynced = 0;
      delete h.started_at;
      delete h.expires_at;
    }
    const before = Date.parse(replica.generated_at) - FORGET_AFTER_MS;
    for (const [id, s] of Object.entries(this.state.sessions))
      if (Date.parse(s.last_report_at) < before) delete this.state.sessions[id];
    // A code named and not sent back can no longer log in (used up, over, unknown): not named again.
    const offered = new Set(replica.codes.map((c) => c.code));
    this.state.named = (this.state.named ?? []).filter((c) => offered.has(c));
    this.flush();
  }

  /** Forgets everything (the region refused this edge's credentials: it was revoked). */
  wipe(): void {
    this.state = { sessions: {}, codes: {} };
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
    // The region answered it: its code is named at the next sync, and learnt of until then.
    const learnFor = journaled
      ? undefined
      : this.state.replica?.routers.find((r) => r.router_id === attrs.get('Hotspot-Router-Id'))?.reseller_id;
    if (!journaled) this.name(normalizeCode(attrs.get('User-Name') ?? ''));
    await accountingExchange(attrs, this.exchange(nowMs, journaled, learnFor));
  }

  /** A code this edge saw at its routers: the next sync asks for it. */
  private name(code: string): void {
    if (!CODE.test(code) || this.state.named?.includes(code)) return;
    this.state.named = [...(this.state.named ?? []), code];
    this.save();
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
