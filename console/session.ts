/**
 * The session lives in sessionStorage: it goes with the tab (closing it logs out, which is what a
 * shared phone or a cybercafé needs), it is not sent with every request as a cookie would be (so
 * no CSRF), and the strict CSP (scripts from this origin only) is what keeps other scripts from
 * reading it. Two tokens: the API's session token (900 s) and the console session's refresh
 * token, which renews it without an SMS while the reseller works (a working day at most; the API
 * rotates it at each use).
 */
export interface Claims {
  role: 'subscriber' | 'reseller' | 'admin' | 'agent';
  sub: string;
  ref: string;
  reseller_id?: string;
  /** An agent's own record (role `agent`). */
  agent_id?: string;
  /** The console session the token belongs to. */
  sid?: string;
  exp: number;
  iat?: number;
}

export interface Session {
  token: string;
  msisdn: string;
  claims: Claims;
  /** The console session's refresh token (none: a subscriber's, or a session of before). */
  refresh?: string;
  /** When the session token lapses, by this tab's clock (epoch ms): its lifetime from when it came. */
  expiresAt: number;
}

function decode(token: string): Claims | undefined {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json) as Claims;
  } catch {
    return undefined;
  }
}

export function loadSession(): Session | undefined {
  const token = sessionStorage.getItem('token');
  const msisdn = sessionStorage.getItem('msisdn');
  const refresh = sessionStorage.getItem('refresh');
  const claims = token ? decode(token) : undefined;
  if (!token || !msisdn || !claims) return undefined;
  // Measured from its arrival, not by the server's clock: a phone's clock is often off.
  const at = Number(sessionStorage.getItem('token_at')) || Date.now();
  const expiresAt = at + (claims.exp - (claims.iat ?? claims.exp - 900)) * 1000;
  return { token, msisdn, claims, expiresAt, ...(refresh ? { refresh } : {}) };
}

export function saveSession(token: string, msisdn: string, refresh?: string): Session | undefined {
  sessionStorage.setItem('token', token);
  sessionStorage.setItem('token_at', String(Date.now()));
  sessionStorage.setItem('msisdn', msisdn);
  if (refresh) sessionStorage.setItem('refresh', refresh);
  else sessionStorage.removeItem('refresh');
  return loadSession();
}

export function clearSession(): void {
  sessionStorage.removeItem('token');
  sessionStorage.removeItem('refresh');
}

/**
 * This tab's own console session. A tab opened from another copies its sessionStorage, and with
 * it the refresh token: two tabs rotating one token would end the session (a replayed generation,
 * to the API). So each tab holds a Web Lock named by its tab id as long as it lives; a tab that
 * finds its id's lock held is a copy, and forks a session of its own (`fork`) under a new id.
 * Without Web Locks (an old browser) the tabs share the session.
 */
export async function ownTab(fork: () => Promise<boolean>): Promise<void> {
  const locks = (navigator as { locks?: LockManager }).locks;
  if (!locks) return;
  /** Takes the lock of `id` for the tab's life; false when another tab holds it. */
  const hold = (id: string) =>
    new Promise<boolean>((taken) => {
      void locks.request(`console-tab:${id}`, { ifAvailable: true }, (lock) => {
        taken(lock !== null);
        return lock ? new Promise<void>(() => undefined) : undefined;
      });
    });
  const id = sessionStorage.getItem('tab') ?? newId();
  sessionStorage.setItem('tab', id);
  if (await hold(id)) return;
  const mine = newId();
  sessionStorage.setItem('tab', mine);
  await hold(mine);
  if (loadSession()?.refresh) await fork();
}

const newId = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16)).join('');
