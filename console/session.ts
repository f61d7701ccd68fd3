/**
 * The session token lives in sessionStorage: it goes with the tab (closing it logs out, which is
 * what a shared phone or a cybercafé needs), it is not sent with every request as a cookie would
 * be (so no CSRF), and it lasts 15 minutes anyway. The strict CSP (scripts from this origin only)
 * is what keeps other scripts from reading it.
 */
export interface Claims {
  role: 'subscriber' | 'reseller' | 'admin' | 'agent';
  sub: string;
  ref: string;
  reseller_id?: string;
  /** An agent's own record (role `agent`). */
  agent_id?: string;
  exp: number;
}

export interface Session {
  token: string;
  msisdn: string;
  claims: Claims;
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
  const claims = token ? decode(token) : undefined;
  return token && msisdn && claims ? { token, msisdn, claims } : undefined;
}

export function saveSession(token: string, msisdn: string): Session | undefined {
  sessionStorage.setItem('token', token);
  sessionStorage.setItem('msisdn', msisdn);
  return loadSession();
}

export function clearSession(): void {
  sessionStorage.removeItem('token');
}
