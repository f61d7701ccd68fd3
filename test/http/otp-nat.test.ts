import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { register } from '../../functions/routers/routers.js';
import { noteSeenAddress } from '../../functions/store/hotspot-addresses.js';
import { readBudgetCounts } from '../../functions/store/otp.js';
import { adminCli } from '../support/admin-cli.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { hotspotOf } from '../support/hotspots.js';
import { type ApiResponse, call, lastOtp, newMsisdn, useLocalServer } from '../support/http.js';

// The callers' public address comes from x-forwarded-for: many subscribers behind one NAT.
const server = useLocalServer({ trustForwardedFor: true });

const HOUR = 3_600_000;

let natCounter = 0;
/**
 * A hotspot of a new reseller whose UDP router is registered at a public address of its own:
 * the address every subscriber of that hotspot sends from (its NAT). Answers both.
 */
async function hotspotBehind(prefix: string): Promise<{ nasId: string; nat: string }> {
  const resellerId = randomUUID();
  const nasId = await hotspotOf(resellerId, prefix);
  natCounter += 1;
  const nat = `203.0.${113 + Math.floor(natCounter / 250)}.${(natCounter % 250) + 1}`;
  await register({
    reseller_id: resellerId,
    name: 'Hotspot router',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: nat,
  });
  return { nasId, nat };
}

/** Runs `fn` with some settings in the environment, then puts the environment back. */
async function withSettings<T>(settings: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  resetConfig();
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfig();
  }
}

let macCounter = 0;
/** A distinct, well-formed MAC per call. */
function newMac(): string {
  macCounter += 1;
  const hex = (0x02_00_00_00_00_00 + macCounter * 7919 + Math.floor(Math.random() * 1e6))
    .toString(16)
    .padStart(12, '0');
  return hex.match(/../g)?.join(':').toUpperCase() ?? '';
}

const request = (body: Record<string, unknown>, from: string) =>
  call<{ otp_token?: string; error?: { code: string } }>(server.url(), 'POST', '/api/v1/auth/otp/request', {
    body,
    headers: { 'x-forwarded-for': from },
  });

const codeOf = (r: ApiResponse<{ error?: { code: string } }>) =>
  r.status === 200 ? 'ok' : (r.body.error?.code ?? String(r.status));

/** The start of the current clock hour: every budget of these tests counts in one window. */
const hourStart = () => Math.floor(Date.now() / HOUR) * HOUR;

afterEach(() => clock.reset());

describe('SMS codes for subscribers behind one NAT address', () => {
  it('gives 200 subscribers of one hotspot, with distinct phones, a code each and logs them all in within the hour', async () => {
    const { nasId, nat: NAT } = await hotspotBehind('access_busy');
    const start = hourStart();
    const outcomes: string[] = [];
    // Two at once every 30 seconds of the evening hour: 200 logins in 50 minutes.
    for (let wave = 0; wave < 100; wave++) {
      clock.set(() => start + wave * 30_000);
      const pair = await Promise.all(
        Array.from({ length: 2 }, async () => {
          const msisdn = newMsisdn();
          const asked = await request({ msisdn, nas_id: nasId, client_mac: newMac() }, NAT);
          // The whole answer, so that a failure says which limit refused.
          if (asked.status !== 200) return JSON.stringify(asked.body);
          const verified = await call(server.url(), 'POST', '/api/v1/auth/otp/verify', {
            body: { msisdn, otp: lastOtp(msisdn), otp_token: asked.body.otp_token },
            headers: { 'x-forwarded-for': NAT },
          });
          return verified.status === 200 ? 'ok' : `verify ${verified.status}`;
        }),
      );
      outcomes.push(...pair);
    }
    expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
    expect(outcomes).toHaveLength(200);
  }, 400_000);

  it('still refuses a flood from one device behind the hotspot with 429 ERR_RATE_LIMITED, whatever numbers it types', async () => {
    const { nasId, nat } = await hotspotBehind('access_flood');
    const mac = newMac();
    const results = [];
    for (let i = 0; i < 8; i++)
      results.push(await request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: mac }, nat));
    expect(results.map(codeOf)).toEqual([...Array(5).fill('ok'), ...Array(3).fill('ERR_RATE_LIMITED')]);
    expect(Number(results[7]?.headers.get('retry-after'))).toBeGreaterThan(3000);
    // The same device written another way is the same device.
    const lower = mac.toLowerCase().replaceAll(':', '-');
    expect(codeOf(await request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: lower }, nat))).toBe(
      'ERR_RATE_LIMITED',
    );
    // Its neighbour at the same hotspot, behind the same address, is not held back.
    expect(codeOf(await request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: newMac() }, nat))).toBe(
      'ok',
    );
  });

  it("stops a flood of invented MACs behind a hotspot at its address's own hourly budget, which binds first logins only", async () => {
    const { nasId, nat } = await hotspotBehind('access_sprayed');
    const neighbour = await hotspotBehind('access_neighbour');
    // Its operator sets the hotspot's own budget.
    const cli = adminCli(() => process.env.TABLE_NAME as string);
    expect(await cli('nas', 'otp-budget', '--nas-id', nasId, '--per-hour', '30')).toMatchObject({ code: 0 });
    // A subscriber of this hotspot who logged in before.
    const regular = newMsisdn();
    const first = await request({ msisdn: regular, nas_id: nasId, client_mac: newMac() }, nat);
    const verified = await call(server.url(), 'POST', '/api/v1/auth/otp/verify', {
      body: { msisdn: regular, otp: lastOtp(regular), otp_token: first.body.otp_token },
      headers: { 'x-forwarded-for': nat },
    });
    expect(verified.status).toBe(200);
    clock.set(() => hourStart() + 2 * HOUR + 60_000);
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: newMac() }, nat),
      ),
    );
    const codes = results.map(codeOf);
    expect(codes.filter((c) => c === 'ok')).toHaveLength(30);
    expect(codes.filter((c) => c === 'ERR_RATE_LIMITED')).toHaveLength(10);
    // Until the clock hour ends, for a number never verified...
    const refused = await request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: newMac() }, nat);
    expect(refused.headers.get('retry-after')).toBe(String(59 * 60));
    // ...while the regular subscriber still gets a code there.
    expect(codeOf(await request({ msisdn: regular, nas_id: nasId, client_mac: newMac() }, nat))).toBe('ok');
    // Another hotspot's address keeps its own budget.
    expect(
      codeOf(
        await request({ msisdn: newMsisdn(), nas_id: neighbour.nasId, client_mac: newMac() }, neighbour.nat),
      ),
    ).toBe('ok');
  }, 60_000);

  it("H2: one client naming a hotspot and MACs in the body is limited by its own address; the hotspot's subscribers still get their SMS", async () => {
    const { nasId, nat } = await hotspotBehind('access_h2');
    clock.set(() => hourStart() + 3 * HOUR + 60_000);
    const stranger = '198.18.7.42';
    const codes: string[] = [];
    // About 400 requests to distinct numbers, 20 at a time, each naming the hotspot and a new MAC.
    for (let wave = 0; wave < 20; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: newMac() }, stranger),
        ),
      );
      codes.push(...answers.map(codeOf));
    }
    expect(codes.filter((c) => c === 'ok')).toHaveLength(30);
    expect(codes.filter((c) => c !== 'ok' && c !== 'ERR_RATE_LIMITED')).toEqual([]);
    // A real subscriber at that hotspot, from its address: an SMS, and a login.
    const subscriber = newMsisdn();
    const asked = await request({ msisdn: subscriber, nas_id: nasId, client_mac: newMac() }, nat);
    expect(asked.status).toBe(200);
    const verified = await call(server.url(), 'POST', '/api/v1/auth/otp/verify', {
      body: { msisdn: subscriber, otp: lastOtp(subscriber), otp_token: asked.body.otp_token },
      headers: { 'x-forwarded-for': nat },
    });
    expect(verified.status).toBe(200);
  }, 120_000);

  it("raises the budget of an address a RadSec router was seen sending RADIUS from, as a registered UDP router's", async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_radsec');
    const { router } = await register({
      reseller_id: resellerId,
      name: 'RouterOS 7',
      nas_ids: [nasId],
      transport: 'radsec',
    });
    const nat = '192.0.2.77';
    // What authorize records when the router's Access-Request comes from that address.
    await noteSeenAddress({ address: nat, router_id: router.router_id, seen_at: new Date().toISOString() });
    clock.set(() => hourStart() + 4 * HOUR + 60_000);
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        request({ msisdn: newMsisdn(), nas_id: nasId, client_mac: newMac() }, nat),
      ),
    );
    // Past the plain address limit of 30: the hotspot's 400 an hour.
    expect(results.map(codeOf).filter((c) => c !== 'ok')).toEqual([]);
  });

  it('budgets a request from an address no router sends from per address, whatever hotspot or MAC it names', async () => {
    await withSettings({ OTP_REQUESTS_PER_ADDRESS_PER_HOUR: '3' }, async () => {
      const office = '203.0.113.77';
      const results = [];
      for (const extra of [
        {},
        { nas_id: 'access_nowhere_at_all', client_mac: newMac() },
        { nas_id: 'access_nowhere_at_all' },
        { client_mac: 'not a mac' },
      ]) {
        results.push(codeOf(await request({ msisdn: newMsisdn(), ...extra }, office)));
      }
      expect(results).toEqual(['ok', 'ok', 'ok', 'ERR_RATE_LIMITED']);
    });
  });

  it('answers 400 ERR_VALIDATION for an unknown field or a nas_id that is no string, changing nothing', async () => {
    const msisdn = newMsisdn();
    for (const body of [
      { msisdn, mac: 'AA:BB:CC:DD:EE:FF' },
      { msisdn, nas_id: 12 },
      { msisdn, nas_id: '' },
    ]) {
      const r = await request(body, '198.18.9.9');
      expect([r.status, codeOf(r)]).toEqual([400, 'ERR_VALIDATION']);
    }
    expect(codeOf(await request({ msisdn }, '198.18.9.9'))).toBe('ok');
  });
});

describe('the platform-wide SMS budget', () => {
  it('is spent exactly, never twice, by parallel requests from many hotspots', async () => {
    await withSettings({ OTP_REQUESTS_PER_HOUR: '60', OTP_BUDGET_SHARDS: '8' }, async () => {
      // A fresh clock hour: the budget's windows of other tests are not this one.
      const start = hourStart() + 5 * HOUR;
      clock.set(() => start);
      const hotspots = await Promise.all(
        Array.from({ length: 10 }, () => hotspotOf(randomUUID(), 'access_p')),
      );
      const results = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          request(
            { msisdn: newMsisdn(), nas_id: hotspots[i % 10], client_mac: newMac() },
            `198.51.100.${(i % 200) + 1}`,
          ),
        ),
      );
      const codes = results.map(codeOf);
      expect(codes.filter((c) => c !== 'ok' && c !== 'ERR_RATE_LIMITED')).toEqual([]);
      expect(codes.filter((c) => c === 'ok')).toHaveLength(60);
      const shards = Array.from({ length: 8 }, (_, i) => ({
        window: { scope: 'OTP_ALL', limit: 8, windowMs: HOUR },
        subject: `S${i}`,
      }));
      const counts = await readBudgetCounts(shards, start);
      // Every shard full, none past its share: 60 = 8 + 8 + 8 + 8 + 7 x 4.
      expect(counts).toEqual([8, 8, 8, 8, 7, 7, 7, 7]);
    });
  }, 120_000);

  it('spreads parallel requests over its shards, so that they do not fight over one item', async () => {
    const start = hourStart() + 7 * HOUR;
    clock.set(() => start);
    const hotspots = await Promise.all(Array.from({ length: 20 }, () => hotspotOf(randomUUID(), 'access_s')));
    const probe = probeDdb();
    probe.reset();
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        request(
          { msisdn: newMsisdn(), nas_id: hotspots[i % 20], client_mac: newMac() },
          `198.51.100.${i + 1}`,
        ),
      ),
    );
    expect(results.map(codeOf).filter((c) => c !== 'ok')).toEqual([]);
    const shards = Array.from({ length: 32 }, (_, i) => ({
      window: { scope: 'OTP_ALL', limit: 6250, windowMs: HOUR },
      subject: `S${i}`,
    }));
    const counts = await readBudgetCounts(shards, start);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(64);
    // 64 requests over 32 shards at random: no shard takes more than a small share.
    expect(Math.max(...counts)).toBeLessThanOrEqual(10);
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(20);
  }, 120_000);
});
