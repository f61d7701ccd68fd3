import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Access } from '../../functions/store/access-codes.js';
import { getAccount } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { Session } from '../../functions/store/sessions.js';
import { accountingReport, paidCode, resellerWithCodes } from '../support/access.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';
import { account } from '../support/region.js';
import { eventually } from '../support/wait.js';

/**
 * Ended sessions, searched by code or by the buyer's phone (`GET /api/v1/sessions/ended`): a
 * session closed by its router's Stop is found (the real close writes the index's keys), one
 * still open is not, nor one ended over 30 days ago; another reseller finds nothing of them.
 */
const server = useLocalServer();
type Ended = {
  items: { id: string; code: string; closed_at: string; close_reason?: string; mac?: string }[];
};
const get = (path: string, token: string) =>
  call<Ended & { error?: { code: string } }>(server.url(), 'GET', path, { token });

describe('ended sessions, by code or phone', () => {
  it('finds a session its Stop closed, by the code as typed and by the phone that bought it, for 30 days', async () => {
    const r = await resellerWithCodes(0, 'ended');
    await recordReseller({ resellerId: r.resellerId, name: 'Chez Awa', country: 'CI' });
    // A code bought by a phone (its account is the buyer), and one of its sessions a Stop ends.
    const msisdn = newMsisdn();
    await login(server.url(), msisdn);
    const buyer = (await getAccount(msisdn))?.id as string;
    const code = paidCode(r.resellerId, {}, { subscriber_id: buyer, forfait_name: 'Pass Jour' });
    await Access.put(code);
    const ended = randomUUID();
    const open = randomUUID();
    await account(accountingReport(r, code.code, ended, 'Start'), Date.now());
    await account(accountingReport(r, code.code, ended, 'Stop', 5000), Date.now());
    // Another code of the same phone, still online: not an ended session.
    const other = paidCode(r.resellerId, {}, { subscriber_id: buyer });
    await Access.put(other);
    await account(accountingReport(r, other.code, open, 'Start'), Date.now());
    // A session of the same code that ended 31 days ago: past the search.
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await Session.put({
      id: randomUUID(),
      code: code.code,
      nas_id: r.nasId,
      reseller_id: r.resellerId,
      device: `${r.nasId}/02:00:00:00:00:09`,
      status: 'closed',
      total_bytes: 1,
      session_time_s: 1,
      started_at: old,
      last_report_at: old,
      closed_at: old,
      close_reason: 'stop',
    });

    const owner = await tokenFor('reseller', { resellerId: r.resellerId });
    const typed = `${code.code.slice(0, 4).toLowerCase()} ${code.code.slice(4)}`;
    await eventually(async () => {
      const byCode = await get(`/api/v1/sessions/ended?code=${encodeURIComponent(typed)}`, owner);
      expect(byCode.status).toBe(200);
      expect(byCode.body.items.map((s) => s.id)).toEqual([ended]);
    });
    const byCode = await get(`/api/v1/sessions/ended?code=${code.code}`, owner);
    expect(byCode.body.items[0]).toMatchObject({
      code: code.code,
      close_reason: 'stop',
      mac: '02:00:00:00:00:01',
    });
    // The phone as people write it in Côte d'Ivoire, and in its international form.
    const national = msisdn.slice(4).replace(/(\d{2})(?=\d)/g, '$1 '); // 07 12 34 56 78
    for (const phone of [msisdn, national]) {
      const byPhone = await get(`/api/v1/sessions/ended?phone=${encodeURIComponent(phone)}`, owner);
      expect(byPhone.status, phone).toBe(200);
      expect(byPhone.body.items.map((s) => s.id)).toEqual([ended]);
    }

    // Another reseller: nothing of this code or this phone, and 403 for this reseller's id.
    const stranger = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await get(`/api/v1/sessions/ended?code=${code.code}`, stranger)).body.items).toEqual([]);
    expect(
      (await get(`/api/v1/sessions/ended?phone=${encodeURIComponent(msisdn)}`, stranger)).body.items,
    ).toEqual([]);
    expect(
      (await get(`/api/v1/sessions/ended?reseller_id=${r.resellerId}&code=${code.code}`, stranger)).status,
    ).toBe(403);
  });

  it('answers 400 to neither or both of code and phone, to a phone of no served country, and changes nothing', async () => {
    const owner = await tokenFor('reseller', { resellerId: randomUUID() });
    for (const q of ['', '?code=ABCD2345&phone=%2B2250700000000', '?phone=12', '?code=%3Cscript%3E']) {
      const a = await get(`/api/v1/sessions/ended${q}`, owner);
      expect(a.status, q).toBe(400);
      expect(a.body.error?.code).toBe('ERR_VALIDATION');
    }
  });
});
