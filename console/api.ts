import { clearSession, loadSession } from './session.js';

export interface Answer<T> {
  status: number;
  body: T;
}

export interface ApiError {
  error?: { code?: string; message?: string; details?: { path: string; message: string }[] };
  retry_after_seconds?: number;
}

/**
 * Who answers an expired session: the app opens its dialog, asks for a new code and resolves
 * with true once logged in again (false when the user gives up). The request that met the 401
 * is then sent again, so the screen keeps what it was showing and what was typed.
 */
let relogin: (() => Promise<boolean>) | undefined;
export const onExpired = (fn: () => Promise<boolean>): void => {
  relogin = fn;
};
let pending: Promise<boolean> | undefined;

/** Thrown when the network or the service is down: screens say so and keep their state. */
export class Offline extends Error {}

/** Requests on their way: a logout lets them arrive before it revokes the session they carry. */
const inFlight = new Set<Promise<unknown>>();

/**
 * Resolves once the requests on their way have answered, or after `maxMs`: a logout revoking the
 * session while a screen still loads would have those requests answered 401 (and the expired-
 * session dialog open over the login screen).
 */
export async function settled(maxMs = 2000): Promise<void> {
  if (!inFlight.size) return;
  await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, maxMs))]);
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
  let res = await send(method, path, body, loadSession()?.token);
  if (res.status === 401 && loadSession() && relogin && !path.startsWith('/auth/otp')) {
    clearSession();
    pending ??= relogin().finally(() => {
      pending = undefined;
    });
    if (await pending) res = await send(method, path, body, loadSession()?.token);
  }
  if (res.status >= 500) throw new Offline(String(res.status));
  const type = res.headers.get('content-type') ?? '';
  const parsed = type.includes('json') ? await res.json() : await res.text();
  return { status: res.status, body: parsed as T & ApiError };
}

/** The server's validation messages by field (`body.primary_color` -> `primary_color`). */
export function fieldErrors(err: ApiError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of err.error?.details ?? []) out[d.path.replace(/^body\.?/, '') || '_'] = d.message;
  if (!err.error?.details?.length && err.error?.message) out._ = err.error.message;
  return out;
}
