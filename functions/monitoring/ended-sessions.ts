// A phone's or a code's ended sessions found for a reseller's support.

import { typedCode } from '../billing/codes.js';
import { validation } from '../core/errors.js';
import { nationalE164 } from '../core/phone.mjs';
import { Access, listCodesOf } from '../store/access-codes.js';
import { getAccount } from '../store/accounts.js';
import { batchGet } from '../store/entity.js';
import { getReseller } from '../store/resellers.js';
import { endedSessionsOfCode, type RadiusSession } from '../store/sessions.js';

/** At most this many sessions answered; a phone's newest codes searched, at most this many. */
const MAX_SESSIONS = 50;
const MAX_CODES = 10;

/**
 * A reseller's ended sessions of the last 30 days found by a code or by the phone that bought
 * it (the phone's account, its newest codes of this reseller), newest first: one Query per code
 * on the ended sessions' index (functions/store/session-entity.ts, `endedByCode`). Another
 * reseller's code or phone finds nothing, as an unknown one does.
 */
export async function findEndedSessions(
  resellerId: string,
  by: { code?: string | undefined; phone?: string | undefined },
  nowMs: number,
) {
  const codes = by.code ? [typedCode(by.code)] : await codesOfPhone(resellerId, by.phone ?? '');
  const perCode = await Promise.all(codes.map((code) => endedSessionsOfCode(code, nowMs, MAX_SESSIONS)));
  const sessions = perCode
    .flat()
    .filter((s) => s.reseller_id === resellerId)
    .sort((a, b) => (b.closed_at ?? '').localeCompare(a.closed_at ?? ''))
    .slice(0, MAX_SESSIONS);
  const read = sessions.length
    ? await batchGet([...new Set(sessions.map((s) => s.code))].map((code) => [Access, { code }] as const))
    : [];
  const names = new Map(read.flatMap((c) => (c?.forfait_name ? [[c.code, c.forfait_name] as const] : [])));
  return { items: sessions.map((s) => shown(s, names.get(s.code))) };
}

/** The codes a phone bought from this reseller, newest first. */
async function codesOfPhone(resellerId: string, typed: string): Promise<string[]> {
  const country = (await getReseller(resellerId))?.country ?? 'CI';
  const msisdn = nationalE164(typed, country);
  if (!msisdn) throw validation('phone is not a number of a served country');
  const account = await getAccount(msisdn);
  if (!account) return [];
  const codes = await listCodesOf(account.id, 50);
  return codes
    .filter((c) => c.reseller_id === resellerId)
    .slice(0, MAX_CODES)
    .map((c) => c.code);
}

function shown(s: RadiusSession, forfaitName: string | undefined) {
  const mac = s.device.slice(s.device.indexOf('/') + 1);
  return {
    id: s.id,
    code: s.code,
    nas_id: s.nas_id,
    ...(/^[0-9A-F]{2}(:[0-9A-F]{2}){5}$/i.test(mac) ? { mac } : {}),
    ...(forfaitName ? { forfait_name: forfaitName } : {}),
    started_at: s.started_at,
    closed_at: s.closed_at ?? s.last_report_at,
    ...(s.close_reason ? { close_reason: s.close_reason } : {}),
    total_bytes: s.total_bytes,
    session_time_s: s.session_time_s,
  };
}
