// The edge's decisions while the region is unreachable: logins and accounting answered from its replica.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Replica, ReplicaCode } from '../edge/replica.js';
import { acceptReply, deviceKey, normalizeCode, type Refusal, rejectReply } from '../radius/attributes.js';
import { dataGrant, standing } from '../radius/standing.js';
import type { AccessCode } from '../store/access-codes.js';
import { atomicWrite } from './journal.js';

/**
 * What the edge knows of its hotspots, and the decisions it makes from it while the region cannot
 * be reached (docs/outage.md). The replica (functions/edge/replica.ts) is the region's view at
 * its last sync; on top of it the edge keeps what it saw itself, forwarded or not: each
 * session's latest running total, each code's devices with a session here and their lease, and
 * the bytes counted here that the region has not taken yet. The same rules as the region decide
 * (functions/radius/standing.ts for time and data, the reply of functions/radius/attributes.ts),
 * with two limits of a cut: devices are counted at this edge only, and a code sold after the
 * last sync is unknown here.
 */

/** A session seen at this edge: its code, its device and the running total last reported. */
interface SeenSession {
  code: string;
  device: string;
  total: number;
}

interface State {
  replica?: Replica;
  sessions: Record<string, SeenSession>;
  /** code -> device -> lease end (epoch ms). */
  leases: Record<string, Record<string, number>>;
  /** code -> bytes counted here since the replica was made (journaled, not yet in the region). */
  unsynced: Record<string, number>;
  /** code -> end of its access, set here when its clock started here (a voucher first used during the cut). */
  started: Record<string, string>;
}

/** The text a code sold after the cut (or unknown here) is refused with. */
const CUT_MESSAGE = 'Réseau national coupé : seuls les codes déjà achetés fonctionnent';

export class EdgeState {
  private readonly file: string;
  private state: State;
  private codes = new Map<string, ReplicaCode>();

  constructor(
    dir: string,
    private readonly leaseMs: number,
    private readonly interimS: number,
  ) {
    this.file = join(dir, 'state.json');
    this.state = existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as State)
      : { sessions: {}, leases: {}, unsynced: {}, started: {} };
    this.index();
  }

  private index(): void {
    this.codes = new Map((this.state.replica?.codes ?? []).map((c) => [c.code, c]));
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
    return [...new Set(Object.values(this.state.sessions).map((s) => s.code))];
  }

  /** A new replica, taken once the journal is empty: what was counted here is in it now. */
  replace(replica: Replica): void {
    this.state.replica = replica;
    this.state.unsynced = {};
    this.state.started = {};
    this.index();
    this.flush();
  }

  /** Forgets everything (the region refused this edge's credentials: it was revoked). */
  wipe(): void {
    this.state = { sessions: {}, leases: {}, unsynced: {}, started: {} };
    this.index();
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

  /**
   * A login decided here (the region unreachable): the password checked against the code (PAP; a
   * CHAP login gets the password to check, as the region's authorize does), the router allowed
   * for the NAS id, the code its reseller's, time and data left after what was counted here, and
   * a free place among the devices holding a lease at this edge. Answers the REST status and body.
   */
  login(
    attrs: Map<string, string>,
    nowMs: number,
  ): { status: number; body: Record<string, unknown>; recorded: boolean } {
    const refuse = (reason: Refusal, text?: string) => ({
      status: 401,
      body: text ? { 'reply:Reply-Message': { value: text, do_xlat: false } } : rejectReply(reason),
      recorded: false,
    });
    const replica = this.state.replica;
    const nasId = attrs.get('NAS-Identifier') ?? '';
    const nas = replica?.nas.find((n) => n.nas_id === nasId);
    const router = replica?.routers.find((r) => r.router_id === attrs.get('Hotspot-Router-Id'));
    if (!nas || !router?.nas_ids.includes(nasId) || router.reseller_id !== nas.reseller_id)
      return refuse('invalid_request', 'Routeur non autorisé pour ce hotspot');
    const typed = attrs.get('User-Name') ?? '';
    const known = this.codes.get(normalizeCode(typed));
    if (!known || known.reseller_id !== nas.reseller_id) return refuse('unknown_code', CUT_MESSAGE);
    const code = this.asCode(known);
    const left = standing(code, nowMs);
    if ('refused' in left) return refuse(left.refused);
    const key = deviceKey({
      callingStationId: attrs.get('Calling-Station-Id'),
      nasId,
      nasPort: attrs.get('NAS-Port'),
    });
    const live = Object.fromEntries(
      Object.entries(this.state.leases[code.code] ?? {}).filter(([, end]) => end > nowMs),
    );
    if (!(key in live) && Object.keys(live).length >= code.offer.max_devices) return refuse('device_limit');
    const grant = dataGrant(code, live, key, left.bytesLeft);
    if ('refused' in grant) return refuse(grant.refused);
    const password = attrs.get('User-Password');
    const atAuthorize = attrs.get('Hotspot-Login-At-Authorize') === '1' && password !== undefined;
    const reply = acceptReply(nas.vendor, {
      password: typed,
      sessionTimeoutS: left.secondsLeft,
      cirKbps: code.offer.cir_kbps,
      mirKbps: code.offer.mir_kbps,
      dataBytes: grant.bytes,
      interimS: this.interimS,
      expiresAt: left.expiresAt,
    });
    // CHAP: FreeRADIUS checks the password, then post-auth records the login (`record`).
    if (!atAuthorize) return { status: 200, body: reply, recorded: false };
    if (normalizeCode(password) !== code.code) return refuse('unknown_code');
    this.record(code.code, key, nowMs);
    return { status: 200, body: { ...reply, 'control:Hotspot-Login-Recorded': 1 }, recorded: true };
  }

  /** A device's place on a code at this edge, for a lease. */
  lease(code: string, device: string, nowMs: number): void {
    const leases = this.state.leases[code] ?? {};
    leases[device] = nowMs + this.leaseMs;
    this.state.leases[code] = leases;
    this.save();
  }

  /**
   * A login decided here: its lease, and the clock of a code never started (a voucher's first
   * use), which starts now as the region would start it (the region starts it again, from the
   * journal's replay of this login).
   */
  record(code: string, device: string, nowMs: number): void {
    const known = this.codes.get(code);
    if (known && !known.started_at && !this.state.started[code])
      this.state.started[code] = new Date(nowMs + known.offer.duration_hours * 3600_000).toISOString();
    this.lease(code, device, nowMs);
  }

  /** The replica's code as the region's rules read it, with what this edge counted and started. */
  private asCode(c: ReplicaCode): AccessCode {
    const started = this.state.started[c.code];
    return {
      code: c.code,
      reseller_id: c.reseller_id,
      source: 'payment',
      source_id: '',
      forfait_id: '',
      offer: c.offer,
      created_at: '',
      ...(c.use_by ? { use_by: c.use_by } : {}),
      ...(c.started_at ? { started_at: c.started_at } : started ? { started_at: started } : {}),
      ...(c.expires_at ? { expires_at: c.expires_at } : started ? { expires_at: started } : {}),
      used_bytes: c.used_bytes + (this.state.unsynced[c.code] ?? 0),
      devices: {},
      devices_version: 0,
    };
  }

  /**
   * An accounting report seen here (`journaled`: not taken by the region yet, its growth counts
   * against the code here). Keeps the session's running total and its device's lease.
   */
  account(attrs: Map<string, string>, nowMs: number, journaled: boolean): void {
    const id = attrs.get('Acct-Unique-Session-Id');
    const status = attrs.get('Acct-Status-Type');
    const code = normalizeCode(attrs.get('User-Name') ?? '');
    if (!id || !code || !status || !['Start', 'Interim-Update', 'Stop'].includes(status)) return;
    const total =
      Number(attrs.get('Acct-Input-Octets64') ?? 0) + Number(attrs.get('Acct-Output-Octets64') ?? 0);
    const device = deviceKey({
      callingStationId: attrs.get('Calling-Station-Id'),
      nasId: attrs.get('NAS-Identifier') ?? '',
      nasPort: attrs.get('NAS-Port'),
    });
    const seen = this.state.sessions[id];
    const grew = Math.max(0, total - (seen?.total ?? 0));
    if (journaled && grew > 0) this.state.unsynced[code] = (this.state.unsynced[code] ?? 0) + grew;
    this.state.sessions[id] = { code, device, total: Math.max(total, seen?.total ?? 0) };
    if (status !== 'Stop') {
      this.lease(code, device, nowMs);
      return;
    }
    delete this.state.leases[code]?.[device];
    delete this.state.sessions[id];
    this.save();
  }
}
