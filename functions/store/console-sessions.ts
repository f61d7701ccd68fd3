// Console session records: one login on one tab, its refresh token's digest, its end.

import type { Role } from '../core/principal.js';
import { AccountEntity, type StoredAccount } from './accounts.js';
import { batchGet, entity, exists, notExists } from './entity.js';

/**
 * A console session: one login of an operator or an agent on one browser tab, which its session
 * tokens (900 s each) name by `sid` and which a refresh token renews without an SMS for a
 * working day while it is used (functions/auth/console-sessions.ts). Ending it (a logout) ends
 * its tokens at once and leaves the account's other sessions alone.
 */
export interface ConsoleSession {
  sid: string;
  msisdn: string;
  account_id: string;
  role: Role;
  reseller_id?: string;
  agent_id?: string;
  /** The account's token version at login: a "log out everywhere" moves it on, and ends this. */
  token_version: number;
  /** Random, per session: what its refresh secrets are derived from (with the signing key). */
  salt: string;
  /** The signing key's id at login: the key its refresh secrets are derived with. */
  kid: string;
  /** The generation of the current refresh secret; each refresh moves it on by one. */
  gen: number;
  /** When the current generation was made: the previous one is still taken for a short grace. */
  rotated_at: number;
  started_at: number;
  /** Epoch seconds after which the session is over (idle or past its day); also its TTL. */
  until_s: number;
}

const ConsoleSessionEntity = entity<ConsoleSession>('console_session')({
  key: (s: Pick<ConsoleSession, 'sid'>) => ({ pk: `CSESSION#${s.sid}`, sk: 'CSESSION' }),
  ttl: (s) => s.until_s,
});

// Access: PutItem pk=CSESSION#<sid> attribute_not_exists(pk).
export const createConsoleSession = (s: ConsoleSession): Promise<boolean> =>
  ConsoleSessionEntity.put(s, notExists);

// Access: GetItem pk=CSESSION#<sid> (ConsistentRead: a logout holds from the next refresh on).
export const getConsoleSession = (sid: string): Promise<ConsoleSession | undefined> =>
  ConsoleSessionEntity.get({ sid }, { consistent: true });

/**
 * What a session token that names a console session must still match: the account (as
 * `sessionStateOf` reads it) and the session, in one strongly consistent BatchGetItem.
 */
// Access: BatchGetItem (ConsistentRead) pk=ACCOUNT#<msisdn> + pk=CSESSION#<sid>.
export async function accountAndSession(
  msisdn: string,
  sid: string,
): Promise<{ account: StoredAccount | undefined; session: ConsoleSession | undefined }> {
  const [account, session] = await batchGet(
    [
      [AccountEntity, { msisdn }],
      [ConsoleSessionEntity, { sid }],
    ] as const,
    { consistent: true },
  );
  return { account, session };
}

/**
 * Moves the session's refresh secret on from generation `from` (false when another refresh
 * moved it first, or the session is gone): the one refresh of a generation that wins.
 */
// An upsert only so that the helper moves the TTL with until_s; the condition wants the item there.
// Access: UpdateItem pk=CSESSION#<sid> SET gen, rotated_at, until_s, ttl (condition: exists AND gen = :from).
export const rotateConsoleSession = (
  sid: string,
  from: number,
  at: { nowMs: number; untilS: number },
): Promise<boolean> =>
  ConsoleSessionEntity.upsert(
    { sid },
    { set: { gen: from + 1, rotated_at: at.nowMs, until_s: at.untilS } },
    {
      expression: `${exists.expression} AND gen = :from`,
      values: { ':from': from },
    },
  );

/** Ends a session (a logout); only the account's own (`accountId`). False when it was not there. */
// Access: DeleteItem pk=CSESSION#<sid> (condition: account_id = :id).
export const endConsoleSession = (sid: string, accountId: string): Promise<boolean> =>
  ConsoleSessionEntity.delete({ sid }, { expression: 'account_id = :id', values: { ':id': accountId } });
