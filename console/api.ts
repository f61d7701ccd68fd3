import { lang, t } from './i18n.js';
import { clearSession, loadSession, saveSession } from './session.js';

export interface Answer<T> {
  status: number;
  body: T;
  /** A 429's `Retry-After`: the seconds the server wants the client to wait. */
  retryAfter?: number;
}

export interface ApiError {
  error?: { code?: string; message?: string; details?: { path: string; message: string }[] };
}

/**
 * Who hears that the session is over (logged out in another tab, everywhere, idle for hours, past
 * its day): the app shows the login, and sends no code until the person asks for one.
 */
let ended: (() => void) | undefined;
export const onEnded = (fn: () => void): void => {
  ended = fn;
};

/** A renewal: the session token is new, the session is over, or the network failed (the session stays). */
type Renewal = 'ok' | 'ended' | 'offline';
let renewing: Promise<Renewal> | undefined;

/**
 * Renews the session token with the console session's refresh token, without an SMS (one renewal
 * at a time for the tab). `fork`: this tab's storage was copied from another tab's, it takes a
 * session of its own.
 */
export function renew(fork = false): Promise<Renewal> {
  renewing ??= (async (): Promise<Renewal> => {
    const s = loadSession();
    if (!s?.refresh) return 'ended';
    let res: Response;
    try {
      res = await send(
        'POST',
        '/auth/refresh',
        { refresh_token: s.refresh, ...(fork ? { fork } : {}) },
        undefined,
      );
    } catch {
      return 'offline';
    }
    if (res.status >= 500) return 'offline';
    if (res.status !== 200) return 'ended';
    const b = (await res.json()) as { session_token: string; refresh_token: string };
    saveSession(b.session_token, s.msisdn, b.refresh_token);
    return 'ok';
  })().finally(() => {
    renewing = undefined;
  });
  return renewing;
}

/** The session token lapses within a minute (by this tab's clock, from when it was received). */
const lapsing = (): boolean => {
  const s = loadSession();
  return !!s?.refresh && s.expiresAt - Date.now() < 60_000;
};

/** Thrown when the network or the service is down: screens say so and keep their state. */
export class Offline extends Error {}

/** Requests on their way: a logout lets them arrive before it revokes the session they carry. */
const inFlight = new Set<Promise<unknown>>();
/** Set while a logout runs: no new request goes out under a session about to be revoked. */
let closing = false;

/**
 * Logs out (this session, or `everywhere`: every session of the account): refuses new requests,
 * lets the ones on their way answer (at most `maxMs`), then ends the session and forgets it. Revoked under them, a screen still loading would get 401s
 * (and the expired-session dialog would open over the login screen); a screen that chains a
 * second request after the first answers would send it into the revoked session.
 */
export async function logOut(everywhere = false, maxMs = 5000): Promise<void> {
  closing = true;
  try {
    const until = Date.now() + maxMs;
    while (inFlight.size && Date.now() < until) {
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((r) => setTimeout(r, until - Date.now())),
      ]);
    }
    const token = loadSession()?.token;
    if (token)
      await send('POST', everywhere ? '/auth/logout/all' : '/auth/logout', undefined, token).catch(
        () => undefined,
      );
  } finally {
    clearSession();
    closing = false;
  }
}

async function send(method: string, path: string, body: unknown, token: string | undefined) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const request = fetch(`/api/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  inFlight.add(request);
  try {
    return await request;
  } catch {
    throw new Offline('network');
  } finally {
    inFlight.delete(request);
  }
}

export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<T & ApiError>> {
  // A screen asking for more while the session ends gets the same answer as no network.
  if (closing) throw new Offline('logging out');
  const own = path.startsWith('/auth/otp') || path.startsWith('/auth/refresh');
  if (!own && lapsing()) await renew();
  let res = await send(method, path, body, loadSession()?.token);
  // A 401 that meets a logout under way is the logout's own doing: nothing to renew.
  if (res.status === 401 && !closing && !own && loadSession()) {
    const renewal = await renew();
    if (renewal === 'offline') throw new Offline('renewal');
    if (renewal === 'ok') res = await send(method, path, body, loadSession()?.token);
    else {
      clearSession();
      ended?.();
      throw new Offline('session ended');
    }
  }
  if (res.status >= 500) throw new Offline(String(res.status));
  // A refusal is said from its code: the words for them come with the first one (a chunk of
  // their own, out of what every page loads), before the screen reads them.
  if (res.status >= 400) await refusalWords();
  const type = res.headers.get('content-type') ?? '';
  const parsed = type.includes('json') ? await res.json() : await res.text();
  const wait = Number(res.headers.get('retry-after'));
  return {
    status: res.status,
    body: parsed as T & ApiError,
    ...(Number.isInteger(wait) && wait > 0 ? { retryAfter: wait } : {}),
  };
}

let words: typeof import('./errors.js') | undefined;
async function refusalWords(): Promise<void> {
  words ??= await import('./errors.js').catch(() => undefined);
}

/**
 * What a refusal says to the reader, from its stable code in the reader's language (never the
 * API's English message). Without its words (their chunk could not load), the screen says so.
 */
export const errorText = (err: ApiError, status?: number): string =>
  words ? words.refusalText(err, status, lang) : t('err_network');

/** What each refused field needs, in the reader's language; `_` holds the refusal's own. */
export const fieldErrors = (err: ApiError): Record<string, string> =>
  words ? words.refusedFields(err, lang) : { _: t('err_network') };
