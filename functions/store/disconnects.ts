// Disconnect-Requests (RFC 5176) the platform wants a router to act on: armed, due, moved through their states.

import { allOf, anyOf, entity, notExists } from './entity.js';

/**
 * A Disconnect-Request (RFC 5176) the platform wants a router to act on: one per RADIUS session,
 * so that asking twice (two operators, a revoke and a data pool used up at once) sends one.
 *
 * The API cannot reach routers (in AWS it has no route to them): it records the request, and
 * the relay next to FreeRADIUS (deploy/freeradius/disconnect-relay.mjs) claims the due ones,
 * sends them to the router's UDP 3799 and reports the answer. Life of a request:
 *
 *   pending --claim--> sent --ACK--> acked (the session is closed as a Stop would close it)
 *                       |--NAK / no answer--> pending again (later: backoff), or failed after
 *                       |                     the last attempt
 *                       `--no result within the answer window--> claimed again as a timeout
 *
 * A failed request is re-armed (attempts from 0) by the next request for its session.
 */
export type DisconnectStatus = 'pending' | 'sent' | 'acked' | 'failed';
export type DisconnectReason =
  | 'operator'
  | 'code_revoked'
  | 'account_removed'
  | 'data_used'
  /** A remembered device forgotten: its MAC-login sessions end with the binding. */
  | 'device_forgotten'
  /** A MAC-login lease taken over by a device that typed the code. */
  | 'device_evicted';
export type DisconnectOutcome = 'ack' | 'nak' | 'timeout';

export interface DisconnectRequest {
  /** The RADIUS session's id (its Acct-Unique-Session-Id). */
  session_id: string;
  reseller_id: string;
  nas_id: string;
  /** What the router needs to find the session (RFC 5176 section 3). */
  user_name: string;
  acct_session_id?: string;
  nas_ip?: string;
  /** Where the Disconnect-Request goes: the router's address and its Dynamic Authorization port. */
  host: string;
  port: number;
  reason: DisconnectReason;
  status: DisconnectStatus;
  /** Sends so far (each claim is one). */
  attempts: number;
  /** When it is due: to be sent (pending), or to count as unanswered (sent). */
  next_at: string;
  requested_at: string;
  updated_at: string;
  /** The last answer: `nak` with the router's Error-Cause, or `timeout`. */
  last_outcome?: DisconnectOutcome;
  error_cause?: number;
}

/** Finished requests are kept this long (the console shows "failed"), then DynamoDB's TTL removes them. */
const KEEP_S = 30 * 24 * 3600;
const DUE: DisconnectStatus[] = ['pending', 'sent'];

export const Disconnect = entity<DisconnectRequest>('disconnect')({
  key: (d: Pick<DisconnectRequest, 'session_id'>) => ({ pk: `SESSION#${d.session_id}`, sk: 'DISCONNECT' }),
  indexes: {
    /** Requests not finished, by when they are due: what the relay claims next. */
    dueByTime: { gsi: 'gsi1', pk: 'DISCONNECTS#DUE', sk: '{next_at}#{session_id}', sparse: { status: DUE } },
  },
  ttl: (d) => Math.floor(Date.parse(d.requested_at) / 1000) + KEEP_S,
});

// Access: GetItem pk=SESSION#<id>, sk=DISCONNECT (strongly consistent: claims and results decide on it).
export const getDisconnect = (sessionId: string): Promise<DisconnectRequest | undefined> =>
  Disconnect.get({ session_id: sessionId }, { consistent: true });

/**
 * Records a request unless one is under way for the session: created when none exists, re-armed
 * when the last one failed. False when a pending or sent one exists (or one was acked).
 */
// Access: PutItem pk=SESSION#<id>, sk=DISCONNECT (condition: no item, or status failed).
export const armDisconnect = (d: DisconnectRequest): Promise<boolean> =>
  Disconnect.put(d, anyOf(notExists, Disconnect.where.is('status', 'failed')));

/** Due requests (pending ones to send, sent ones whose answer window is over), oldest first. */
// Access: Query dueByTime (gsi1) gsi1pk=DISCONNECTS#DUE AND gsi1sk < :now, Limit.
export async function dueDisconnects(nowIso: string, limit: number): Promise<DisconnectRequest[]> {
  const page = await Disconnect.queryIndex('dueByTime', {}, { sk: { lt: `${nowIso}$` }, limit });
  return page.items;
}

/**
 * Moves a request on from the state it was read in (status, attempts and next_at as read), so
 * that of two relays or two results only one wins. The due list follows the status (the helper
 * rewrites or removes its keys).
 */
// Access: UpdateItem pk=SESSION#<id>, sk=DISCONNECT (condition: status, attempts, next_at as read); dueByTime (gsi1) keys follow.
export function moveDisconnect(
  read: DisconnectRequest,
  next: Pick<DisconnectRequest, 'status' | 'attempts' | 'next_at' | 'updated_at'> &
    Pick<Partial<DisconnectRequest>, 'last_outcome' | 'error_cause'>,
): Promise<boolean> {
  // A new outcome without an Error-Cause (a timeout after a NAK) drops the old cause.
  const cause = next.last_outcome ? { error_cause: next.error_cause } : {};
  return Disconnect.update(
    read,
    { set: { ...next, ...cause }, read },
    allOf(
      Disconnect.where.is('status', read.status),
      Disconnect.where.is('attempts', read.attempts),
      Disconnect.where.is('next_at', read.next_at),
    ),
  );
}
