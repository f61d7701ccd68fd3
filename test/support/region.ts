import { account as accountWith } from '../../functions/radius/accounting.js';
import type { Caller } from '../../functions/radius/caller.js';
import { login } from '../../functions/radius/login.js';
import { regionExchange } from '../../functions/radius/table-store.js';

/**
 * The region's road of the RADIUS core (functions/radius/login.ts, accounting.ts over the table:
 * functions/radius/table-store.ts), called as a test calls it: at a time, for a router already
 * judged (`caller`), or none (a report or a login no router sent: its reseller is not checked).
 */
type AccountingReport = Parameters<typeof accountWith>[0];
type LoginRequest = Parameters<typeof login>[0];

export const account = (report: AccountingReport, nowMs: number, caller?: Caller) =>
  accountWith(report, caller, regionExchange(nowMs));

/** Post-auth's login: decided on a fresh read and written. */
export const authorizeLogin = (req: LoginRequest, nowMs: number, caller?: Caller) =>
  login(req, 'record', caller, regionExchange(nowMs));

/** Authorize's check: the guess counters, the code and the hotspot read; nothing written. */
export const checkLogin = (req: LoginRequest, nowMs: number, caller?: Caller) =>
  login(req, 'check', caller, regionExchange(nowMs));
