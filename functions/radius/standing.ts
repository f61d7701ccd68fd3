// What a code still allows at a moment (time, data, devices), or why it allows nothing.

import { type AccessCode, bytesOfMb } from '../store/access-codes.js';
import type { Refusal } from './attributes.js';

/*
 * What a code still allows, and the data a login gets of it.
 *
 * Data shared by several devices (the rule, exact): each device holding a lease has a
 * reservation, `grants[device]`: the bytes its sessions may still use (what it was granted,
 * less what accounting has counted for it since). A login gets
 *   (cap - used - reservations of the live devices, its own included) / (free places, its own included)
 * and its reservation grows by that. Since the router stops each session at its grant, counted
 * usage can never pass the cap. A device logging in again keeps what its earlier session holds
 * reserved until that session's Stop releases its lease (the Stop may come after the new login,
 * carrying bytes up to that reservation), so a re-login gets only what is free besides it. A share is at least one byte (a limit of 0 means "no limit" to
 * the routers); with nothing left unreserved, the login is refused (`data_used`).
 */

/** What a code still allows at `nowMs`, or why it allows nothing. */
export interface Standing {
  secondsLeft: number;
  /** undefined: no data cap. */
  bytesLeft: number | undefined;
  /** End of the access if a login started it now (ISO). */
  expiresAt: string;
}

/** Time and data left on a code at `nowMs` (before any device check). */
export function standing(code: AccessCode, nowMs: number): Standing | { refused: Refusal } {
  if (code.revoked_at) return { refused: 'revoked' };
  if (!code.started_at && code.use_by && Date.parse(code.use_by) <= nowMs) return { refused: 'expired' };
  const end = code.expires_at ? Date.parse(code.expires_at) : nowMs + code.offer.duration_hours * 3600_000;
  const secondsLeft = Math.floor((end - nowMs) / 1000);
  if (secondsLeft <= 0) return { refused: 'expired' };
  const cap = code.offer.data_limit_mb > 0 ? bytesOfMb(code.offer.data_limit_mb) : undefined;
  const bytesLeft = cap === undefined ? undefined : cap - code.used_bytes;
  if (bytesLeft !== undefined && bytesLeft <= 0) return { refused: 'data_used' };
  return { secondsLeft, bytesLeft, expiresAt: new Date(end).toISOString() };
}

/** The data a login may use and the reservations once it has it (see the rule at the top). */
export function dataGrant(
  code: AccessCode,
  live: Record<string, number>,
  key: string,
  bytesLeft: number | undefined,
): { bytes: number | undefined; grants: Record<string, number> } | { refused: Refusal } {
  if (bytesLeft === undefined) return { bytes: undefined, grants: {} };
  const grants: Record<string, number> = {};
  for (const device of Object.keys(live)) grants[device] = Math.max(0, code.grants?.[device] ?? 0);
  const reserved = Object.values(grants).reduce((a, b) => a + b, 0);
  const others = Object.keys(live).filter((d) => d !== key).length;
  const places = Math.max(1, code.offer.max_devices - others);
  const free = bytesLeft - reserved;
  // The device's own earlier session still holds the rest (its Stop has not come): it is on.
  if (free < 1) return { refused: (grants[key] ?? 0) >= 1 ? 'device_limit' : 'data_used' };
  // At least one byte: a limit of 0 would read as "no limit" (free >= 1, so the cap still holds).
  const bytes = Math.max(1, Math.floor(free / places));
  grants[key] = (grants[key] ?? 0) + bytes;
  return { bytes, grants };
}
