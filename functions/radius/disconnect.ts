// Cutting a session (RFC 5176 Disconnect): asked by an operator or a revocation, claimed and reported by the front's relay.

import { assertOwns } from '../core/access.js';
import { AppError, notFound } from '../core/errors.js';
import { log } from '../core/log.js';
import type { OperatorPrincipal } from '../core/principal.js';
import { disconnectSecretOf } from '../routers/router-secrets.js';
import {
  type AccessCode,
  allCodesOf,
  bytesOfMb,
  getAccessCode,
  revokeAccessCode,
} from '../store/access-codes.js';
import {
  armDisconnect,
  type DisconnectOutcome,
  type DisconnectReason,
  type DisconnectRequest,
  dueDisconnects,
  getDisconnect,
  moveDisconnect,
} from '../store/disconnects.js';
import { bindingsOfCode, forgetMac } from '../store/mac-bindings.js';
import { getNas, listNasIdsOfReseller } from '../store/nas.js';
import { untilSettled } from '../store/retry.js';
import { getSession, openSessionsOfCode, type RadiusSession, reportItems } from '../store/sessions.js';
import { transactIfCurrent } from '../store/transact.js';
import { normalizeCode, normalizeMac } from './attributes.js';
import { radiusSettings } from './settings.js';

/**
 * Cutting a session (RFC 5176 Disconnect), decided here and delivered by the RADIUS front: the
 * API records the request (functions/store/disconnects.ts), the relay next to FreeRADIUS claims
 * it, sends it to the router and reports the answer. On a Disconnect-ACK the session is closed
 * with a Stop's bookkeeping (its device released, the open counters lowered, no bytes added: a
 * later Stop from the router adds what it reports beyond the last interim, and nothing twice).
 */

/** The Dynamic Authorization port of RFC 5176. */
export const COA_PORT = 3799;
/** Error-Cause 503 (RFC 5176): the router has no such session any more, which is what was asked. */
const SESSION_CONTEXT_NOT_FOUND = 503;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Asks for a session to be cut. Idempotent: while a request for it is under way, that one is
 * returned (two operators, or a revoke and a used-up pool at once, send one packet). Undefined
 * when the session is closed already.
 */
async function requestDisconnect(
  session: RadiusSession,
  reason: DisconnectReason,
  nowMs: number,
): Promise<DisconnectRequest | undefined> {
  if (session.status !== 'open') return undefined;
  const nas = await getNas(session.nas_id);
  const host = nas?.coa_host ?? session.nas_ip ?? '';
  const now = iso(nowMs);
  const request: DisconnectRequest = {
    session_id: session.id,
    reseller_id: session.reseller_id,
    nas_id: session.nas_id,
    user_name: session.user_name ?? session.code,
    ...(session.acct_session_id ? { acct_session_id: session.acct_session_id } : {}),
    ...(session.nas_ip ? { nas_ip: session.nas_ip } : {}),
    host,
    port: nas?.coa_port ?? COA_PORT,
    reason,
    // No address to send to (a session recorded before addresses were kept): failed at once.
    status: host ? 'pending' : 'failed',
    attempts: 0,
    next_at: now,
    requested_at: now,
    updated_at: now,
  };
  if (await armDisconnect(request)) {
    log.info('disconnect requested', { sessionId: session.id, nasId: session.nas_id, reason });
    return request;
  }
  return getDisconnect(session.id);
}

/** A session as its reseller sees it, with the state of its disconnect when one was asked. */
interface SessionView extends Omit<RadiusSession, 'uncounted' | 'by_stream'> {
  disconnect: DisconnectView | null;
}
type DisconnectView = Pick<
  DisconnectRequest,
  'status' | 'reason' | 'attempts' | 'requested_at' | 'updated_at' | 'last_outcome' | 'error_cause'
>;

const viewOf = (d: DisconnectRequest | undefined): DisconnectView | null =>
  d
    ? {
        status: d.status,
        reason: d.reason,
        attempts: d.attempts,
        requested_at: d.requested_at,
        updated_at: d.updated_at,
        ...(d.last_outcome ? { last_outcome: d.last_outcome } : {}),
        ...(d.error_cause !== undefined ? { error_cause: d.error_cause } : {}),
      }
    : null;

/** The session, 404 unless the caller's own (or the caller is an admin): existence does not leak. */
async function ownedSession(principal: OperatorPrincipal, id: string): Promise<RadiusSession> {
  const session = await getSession(id);
  assertOwns(principal, session, 'Session');
  return session;
}

export async function sessionView(principal: OperatorPrincipal, id: string): Promise<SessionView> {
  const { uncounted: _, by_stream: __, ...session } = await ownedSession(principal, id);
  return { ...session, disconnect: viewOf(await getDisconnect(id)) };
}

/** `POST /sessions/{id}/disconnect`: 409 when the session is closed already. */
export async function disconnectByOperator(
  principal: OperatorPrincipal,
  id: string,
  nowMs: number,
): Promise<SessionView> {
  const session = await ownedSession(principal, id);
  if (session.status !== 'open') throw new AppError('ERR_CONFLICT', 'The session is closed already');
  const request = await requestDisconnect(session, 'operator', nowMs);
  const { uncounted: _, by_stream: __, ...view } = session;
  return { ...view, disconnect: viewOf(request) };
}

/** Disconnects every open session of a code (a revoke, an account removed, its data used up). */
export async function disconnectCode(
  code: Pick<AccessCode, 'code' | 'reseller_id'>,
  reason: DisconnectReason,
  nowMs: number,
  exceptSessionId?: string,
): Promise<{ session_id: string; status: DisconnectRequest['status'] }[]> {
  const sessions = await openSessionsOfCode(code.code, await listNasIdsOfReseller(code.reseller_id));
  const out: { session_id: string; status: DisconnectRequest['status'] }[] = [];
  for (const s of sessions) {
    if (s.id === exceptSessionId) continue;
    const d = await requestDisconnect(s, reason, nowMs);
    if (d) out.push({ session_id: s.id, status: d.status });
  }
  return out;
}

/**
 * Disconnects the open sessions of one device of a code: `device` a device key
 * (`<nas_id>/<MAC>`: a MAC-login lease taken over), or `{ mac }`: that MAC's MAC-login sessions
 * at any hotspot of the code's reseller (a remembered device forgotten; sessions it opened by
 * typing the code are its holder's own and stay).
 */
export async function disconnectDevice(
  code: Pick<AccessCode, 'code' | 'reseller_id'>,
  device: string | { mac: string },
  reason: DisconnectReason,
  nowMs: number,
): Promise<{ session_id: string; status: DisconnectRequest['status'] }[]> {
  const sessions = await openSessionsOfCode(code.code, await listNasIdsOfReseller(code.reseller_id));
  const out: { session_id: string; status: DisconnectRequest['status'] }[] = [];
  for (const s of sessions) {
    const match =
      typeof device === 'string'
        ? s.device === device
        : s.device.endsWith(`/${device.mac}`) && normalizeMac(s.user_name) === device.mac;
    if (!match) continue;
    const d = await requestDisconnect(s, reason, nowMs);
    if (d) out.push({ session_id: s.id, status: d.status });
  }
  return out;
}

/** Revokes a code and cuts its live sessions (idempotent: revoking again cuts what is still open). */
async function revokeAndCut(code: string, reason: DisconnectReason, nowMs: number) {
  const revoked = await revokeAccessCode(code, iso(nowMs));
  if (!revoked) throw notFound('Code');
  // A voucher sold with this code is the code: it reads revoked in the reseller's lists and is
  // refused at redemption from this one write.
  const disconnects = await disconnectCode(revoked, reason, nowMs);
  return { code: revoked.code, revoked_at: revoked.revoked_at as string, disconnects };
}

/** `POST /access/{code}/revoke`: the owning reseller or an admin; 404 otherwise. */
export async function revokeCode(principal: OperatorPrincipal, typed: string, nowMs: number) {
  const code = await getAccessCode(normalizeCode(typed));
  assertOwns(principal, code, 'Code');
  return revokeAndCut(code.code, 'code_revoked', nowMs);
}

/**
 * An account removed (`npm run admin -- accounts remove` on a subscriber): every code it holds is
 * revoked and their live sessions cut. How many codes, and how many sessions were asked to end.
 */
export async function revokeCodesOfAccount(
  accountId: string,
  nowMs: number,
): Promise<{ codes: number; disconnects: number }> {
  let disconnects = 0;
  const codes = await allCodesOf(accountId);
  for (const c of codes) {
    disconnects += (await revokeAndCut(c.code, 'account_removed', nowMs)).disconnects.length;
    // The devices remembered for MAC login go with the account: a MAC is personal data.
    if ((c.bound_devices ?? 0) > 0) for (const b of await bindingsOfCode(c.code)) await forgetMac(b);
  }
  return { codes: codes.length, disconnects };
}

/**
 * After accounting stored a report of `sessionId` that added bytes: when the code's data is now
 * used up, its other open sessions are cut (each login got a share of what was left, but the
 * other devices would keep their shares of nothing). Missed when two reports raced past the cap
 * at once: the next report sees the total and asks then. Never throws: the report is stored,
 * and its answer must not depend on this.
 */
export async function disconnectOthersWhenUsedUp(
  code: AccessCode,
  addedBytes: number,
  sessionId: string,
  nowMs: number,
): Promise<void> {
  if (addedBytes <= 0 || code.offer.data_limit_mb <= 0) return;
  if (code.used_bytes + addedBytes < bytesOfMb(code.offer.data_limit_mb)) return;
  try {
    const asked = await disconnectCode(code, 'data_used', nowMs, sessionId);
    if (asked.length) log.info('data used up: other sessions disconnected', { sessions: asked.length });
  } catch (error) {
    log.warn('data used up: disconnect not recorded', { error: (error as Error).message });
  }
}

/** What the relay sends: one Disconnect-Request. */
export interface ClaimedDisconnect {
  session_id: string;
  /** The attempt this send is (1..): the result names it, so a late result of an earlier one is ignored. */
  attempt: number;
  host: string;
  port: number;
  user_name: string;
  acct_session_id?: string;
  nas_identifier: string;
  nas_ip_address?: string;
  /** The router's own RADIUS secret to sign with (its UDP secret); absent: the front's shared one. */
  secret?: string;
}

/**
 * The relay's poll: due requests, each claimed for one send (status sent, attempts + 1, due
 * again when its answer window ends). A sent one whose window ended without a result counts as
 * unanswered: sent again, or failed after the last attempt. Of two relays, one claims each.
 */
export async function claimDisconnects(nowMs: number, max: number): Promise<ClaimedDisconnect[]> {
  const settings = radiusSettings();
  const claimed: ClaimedDisconnect[] = [];
  for (const d of await dueDisconnects(iso(nowMs), max)) {
    if (d.status === 'sent' && d.attempts >= settings.RADIUS_DISCONNECT_TRIES) {
      await settle(d, 'timeout', undefined, nowMs);
      continue;
    }
    const attempt = d.attempts + 1;
    const moved = await moveDisconnect(d, {
      status: 'sent',
      attempts: attempt,
      next_at: iso(nowMs + settings.RADIUS_DISCONNECT_WAIT_S * 1000),
      updated_at: iso(nowMs),
      ...(d.status === 'sent' ? { last_outcome: 'timeout' as const } : {}),
    });
    if (!moved) continue;
    const secret = await disconnectSecretOf(d.reseller_id, d.nas_id, d.host);
    claimed.push({
      session_id: d.session_id,
      attempt,
      host: d.host,
      port: d.port,
      user_name: d.user_name,
      ...(d.acct_session_id ? { acct_session_id: d.acct_session_id } : {}),
      nas_identifier: d.nas_id,
      ...(d.nas_ip ? { nas_ip_address: d.nas_ip } : {}),
      ...(secret ? { secret } : {}),
    });
  }
  return claimed;
}

/**
 * The relay's report of one send. An ACK (or a NAK saying the router has no such session)
 * closes the session; another NAK or no answer is retried after a backoff (RADIUS_DISCONNECT_
 * BACKOFF_S, doubling) until RADIUS_DISCONNECT_TRIES sends, then the request is failed. A result
 * of an attempt that is not the current one changes nothing.
 */
export async function recordResult(
  sessionId: string,
  result: { attempt: number; outcome: DisconnectOutcome; error_cause?: number },
  nowMs: number,
): Promise<DisconnectView> {
  const d = await getDisconnect(sessionId);
  if (!d) throw notFound('Disconnect request');
  if (d.status !== 'sent' || d.attempts !== result.attempt) return viewOf(d) as DisconnectView;
  await settle(d, result.outcome, result.error_cause, nowMs);
  return viewOf(await getDisconnect(sessionId)) as DisconnectView;
}

async function settle(
  d: DisconnectRequest,
  outcome: DisconnectOutcome,
  errorCause: number | undefined,
  nowMs: number,
): Promise<void> {
  const settings = radiusSettings();
  const now = iso(nowMs);
  const done = outcome === 'ack' || (outcome === 'nak' && errorCause === SESSION_CONTEXT_NOT_FOUND);
  if (done) {
    // The session first: if this fails, the request stays sent and is tried again, and the
    // router then answers that the session is gone.
    await closeDisconnected(d.session_id, now);
    await moveDisconnect(d, {
      status: 'acked',
      attempts: d.attempts,
      next_at: d.next_at,
      updated_at: now,
      last_outcome: outcome,
      ...(errorCause !== undefined ? { error_cause: errorCause } : {}),
    });
    log.info('disconnect acknowledged', { sessionId: d.session_id, attempts: d.attempts });
    return;
  }
  const last = d.attempts >= settings.RADIUS_DISCONNECT_TRIES;
  const backoffS = settings.RADIUS_DISCONNECT_BACKOFF_S * 2 ** Math.max(0, d.attempts - 1);
  await moveDisconnect(d, {
    status: last ? 'failed' : 'pending',
    attempts: d.attempts,
    next_at: last ? d.next_at : iso(nowMs + backoffS * 1000),
    updated_at: now,
    last_outcome: outcome,
    ...(errorCause !== undefined ? { error_cause: errorCause } : {}),
  });
  if (last) log.warn('disconnect failed', { sessionId: d.session_id, nasId: d.nas_id, outcome });
}

/** Closes the session as of its last report, as a Stop would (nothing when it is closed already). */
async function closeDisconnected(sessionId: string, nowIso: string): Promise<void> {
  await untilSettled(async () => {
    const s = await getSession(sessionId);
    if (s?.status !== 'open') return true;
    // Stale: a report of the session came in meanwhile; read it again (it may have closed it).
    const items = reportItems(s, {
      total_bytes: s.total_bytes,
      session_time_s: s.session_time_s,
      nowIso,
      lease: 0,
      close: 'disconnect',
    });
    return (await transactIfCurrent(items, 'session')) || undefined;
  }, 'disconnect: the session kept changing under the close');
}
