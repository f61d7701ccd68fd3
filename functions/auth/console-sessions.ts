// Console sessions: opened at a login, renewed by a refresh token without an SMS for a working day, ended one or all.

import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { safeEqual } from '../core/compare.js';
import { AppError } from '../core/errors.js';
import { type SessionClaims, sessionClaims } from '../core/principal.js';
import { sessionKeys } from '../core/session-keys.js';
import { sessionStateOf } from '../store/accounts.js';
import {
  type ConsoleSession,
  createConsoleSession,
  endConsoleSession,
  getConsoleSession,
  rotateConsoleSession,
} from '../store/console-sessions.js';
import { untilSettled } from '../store/retry.js';
import { SESSION_TTL_SECONDS, signSession } from './tokens.js';

/**
 * Console sessions: an operator or an agent logs in with an SMS code once, and works a day.
 * The session token stays the API's 900 s JWT; beside it the console gets a refresh token that
 * renews it without an SMS while the session is used: at most CONSOLE_DAY_S after the login,
 * and until CONSOLE_IDLE_S without a refresh. The refresh token is `<sid>.<generation>.<secret>`
 * and each refresh moves it on (rotation); the secret of a generation is derived from the
 * session's salt and the signing key (HMAC), so nothing that opens the session is stored. The
 * previous generation is taken for CONSOLE_GRACE_S after a rotation and answered with the
 * current one: two tabs that share one session (a tab opened from another copies its storage)
 * refresh at the same moment without ending it. An older generation is a stolen or replayed
 * secret: the session ends. A logout ends its session only (its tokens are refused at once);
 * "log out everywhere" moves the account's token version on, which ends every session. A tab
 * that finds its storage copied from another forks a session of its own (`fork`): same account,
 * same day, its own generations.
 */
const CONSOLE_DAY_S = 12 * 3600;
const CONSOLE_IDLE_S = 2 * 3600;
const CONSOLE_GRACE_S = 60;

const refused = () => new AppError('ERR_UNAUTHENTICATED', 'This session has ended: log in again');

/** The secret of a session's generation, base64url. */
async function secretOf(s: Pick<ConsoleSession, 'sid' | 'salt' | 'kid'>, gen: number): Promise<string> {
  const key = (await sessionKeys()).byKid.get(s.kid);
  // The key it was opened with was retired: the session cannot be renewed any more.
  if (!key) throw refused();
  return createHmac('sha256', key).update(`console-refresh:${s.sid}:${gen}:${s.salt}`).digest('base64url');
}

const refreshTokenOf = async (s: ConsoleSession, gen: number) => `${s.sid}.${gen}.${await secretOf(s, gen)}`;

/** When a session used now ends: idle from now, never past its day. */
const untilOf = (s: Pick<ConsoleSession, 'started_at'>, nowMs: number) =>
  Math.floor(Math.min(s.started_at + CONSOLE_DAY_S * 1000, nowMs + CONSOLE_IDLE_S * 1000) / 1000);

export interface ConsoleLogin {
  session_token: string;
  refresh_token: string;
  expires_in: number;
}

/** Opens a console session for an account that just proved its number: its first token pair. */
export async function openConsoleSession(
  claims: SessionClaims & { msisdn: string; tokenVersion?: number },
): Promise<ConsoleLogin> {
  const now = clock.now();
  const session: ConsoleSession = {
    sid: randomUUID(),
    msisdn: claims.msisdn,
    account_id: claims.sub,
    role: claims.role,
    ...('resellerId' in claims ? { reseller_id: claims.resellerId } : {}),
    ...('agentId' in claims ? { agent_id: claims.agentId } : {}),
    token_version: claims.tokenVersion ?? 0,
    salt: randomBytes(16).toString('base64url'),
    kid: (await sessionKeys()).current.kid,
    gen: 0,
    rotated_at: now,
    started_at: now,
    until_s: 0,
  };
  session.until_s = untilOf(session, now);
  await createConsoleSession(session);
  return tokensOf(session, 0);
}

async function forkOf(parent: ConsoleSession, now: number): Promise<ConsoleLogin> {
  const child: ConsoleSession = {
    ...parent,
    sid: randomUUID(),
    salt: randomBytes(16).toString('base64url'),
    kid: (await sessionKeys()).current.kid,
    gen: 0,
    rotated_at: now,
    until_s: untilOf(parent, now),
  };
  await createConsoleSession(child);
  return tokensOf(child, 0);
}

async function tokensOf(s: ConsoleSession, gen: number): Promise<ConsoleLogin> {
  const claims = sessionClaims({
    sub: s.account_id,
    ref: `SUB-${s.msisdn.replace(/\D/g, '')}`,
    role: s.role,
    resellerId: s.reseller_id,
    agentId: s.agent_id,
    tokenVersion: s.token_version,
  });
  const { token } = await signSession({ ...claims, sid: s.sid });
  return {
    session_token: token,
    refresh_token: await refreshTokenOf(s, gen),
    expires_in: SESSION_TTL_SECONDS,
  };
}

const TOKEN = /^([0-9a-f-]{36})\.(\d{1,9})\.([A-Za-z0-9_-]{43})$/;

/**
 * A new token pair for a refresh token. 401 when the session is over (logged out, idle, past its
 * day, its account's role or token version changed since) or the token is not its current
 * generation (nor the previous one within the grace): an old generation ends the session.
 */
export async function refreshConsoleSession(
  refreshToken: string,
  options: { fork?: boolean } = {},
): Promise<ConsoleLogin> {
  const match = TOKEN.exec(refreshToken);
  if (!match) throw refused();
  const [, sid = '', genText = '', secret = ''] = match;
  const gen = Number(genText);
  return untilSettled(
    async () => {
      const now = clock.now();
      const s = await getConsoleSession(sid);
      if (!s || s.until_s * 1000 <= now) throw refused();
      if (!safeEqual(secret, await secretOf(s, gen))) throw refused();
      const account = await sessionStateOf(s.msisdn);
      const stands =
        account?.id === s.account_id &&
        account.role === s.role &&
        (account.token_version ?? 0) === s.token_version &&
        account.reseller_id === s.reseller_id &&
        account.agent_id === s.agent_id;
      if (!stands) {
        await endConsoleSession(sid, s.account_id);
        throw refused();
      }
      const live = gen === s.gen || (gen === s.gen - 1 && now - s.rotated_at <= CONSOLE_GRACE_S * 1000);
      // A tab opened from another (its storage copied): a session of its own, within the same day.
      if (options.fork && live) return forkOf(s, now);
      if (gen === s.gen) {
        if (await rotateConsoleSession(sid, gen, { nowMs: now, untilS: untilOf(s, now) }))
          return tokensOf({ ...s, gen: gen + 1 }, gen + 1);
        return undefined; // another refresh of this generation won: read again
      }
      if (live) return tokensOf(s, s.gen);
      // A generation already replaced: whoever holds it should not. The session ends.
      await endConsoleSession(sid, s.account_id);
      throw refused();
    },
    () => {
      throw new AppError('ERR_UNAVAILABLE', 'Too many refreshes at once: try again', {
        headers: { 'retry-after': '1' },
      });
    },
    5,
  );
}

/** Ends the caller's console session (its own only); false when the token names none. */
export async function endSessionOf(principal: { sid?: string; sub: string }): Promise<boolean> {
  return principal.sid ? endConsoleSession(principal.sid, principal.sub) : false;
}
