import { randomUUID } from 'node:crypto';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { initiatePayment } from '../../functions/billing/payments/initiate.js';
import { ddb } from '../../functions/core/ddb.js';
import { getSecret } from '../../functions/core/secrets.js';
import { Access } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { Router } from '../../functions/store/routers.js';
import { paidCode } from './access.js';
import { hottestByKind, installWriteLedger, type KeyShare, WriteLedger } from './write-keys.js';

/**
 * The load of `npm run loadtest`: simulated routers of `resellers` x `hotspots` sending what a
 * busy evening sends to the API routes FreeRADIUS calls (with the RADIUS bearer, each request
 * naming its router as FreeRADIUS does): logins (authorize, then post-auth), accounting Start,
 * Interim-Updates and Stop, and a few mobile-money payments settled by the gateway's webhook.
 * Every DynamoDB write the API makes is counted per partition key (bench/write-keys.ts).
 *
 * The mix follows docs/scale.md's model, compressed in time: a session sends INTERIMS interims
 * between its Start and its Stop (at the modelled peak 667 interims/s against 50 Starts/s, a
 * ratio of 13; a short run needs sessions to end, so fewer), and a payment every PAY_EVERY
 * logins. `workers` requests are in flight at once, each on a session no other worker holds (a
 * NAS reports one session's events in order); about 4 sessions per worker are open at a time,
 * spread over every hotspot.
 */
export interface LoadOptions {
  baseUrl: string;
  /** The RADIUS front's service (the RADIUS data plane's routes). */
  frontUrl: string;
  seconds: number;
  workers: number;
  resellers: number;
  hotspots: number;
  /** Access codes per hotspot (one session at a time each). */
  codesPerHotspot: number;
  /**
   * Waits until the stream consumers have handled every write of the load (in this process, so
   * that their writes are in the ledger too), before the report is made.
   */
  settle?: () => Promise<void>;
  /** Interim-Updates a session sends between its Start and its Stop (default INTERIMS). */
  interims?: number;
  /**
   * Sessions to start at least, past `seconds` if need be (at most 30 s more): a share of
   * writes over a few dozen sessions says more about the hash than about the design.
   */
  minSessions?: number;
}

export interface LoadReport {
  requests: number;
  failed: number;
  routes: { route: string; requests: number; p50: number; p99: number }[];
  writes: number;
  shares: KeyShare[];
  conflicts: { key: string; count: number }[];
  hottest: KeyShare | undefined;
  lines: string[];
}

const INTERIMS = 6;
const PAY_EVERY = 40;
const TOP = 10;

const attr = (v: string | number) => ({ type: typeof v === 'number' ? 'integer' : 'string', value: [v] });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

interface Hotspot {
  resellerId: string;
  nasId: string;
  routerId: string;
  free: string[];
}

interface Live {
  hotspot: Hotspot;
  code: string;
  mac: string;
  id: string;
  interims: number;
  bytes: number;
  time: number;
}

/** Resellers, their hotspots (a NAS and its UDP router each) and codes, written before counting. */
async function seedNetwork(o: LoadOptions): Promise<Hotspot[]> {
  const run = randomUUID().slice(0, 6);
  const hotspots: Hotspot[] = [];
  const puts: (() => Promise<unknown>)[] = [];
  for (let r = 0; r < o.resellers; r++) {
    const resellerId = randomUUID();
    puts.push(() => recordReseller({ resellerId, name: `Load ${r}`, country: 'CI' }));
    for (let h = 0; h < o.hotspots; h++) {
      const nasId = `access_load_${run}_${r}_${h}`;
      const routerId = `rtr_load_${run}_${r}_${h}`;
      const spot: Hotspot = { resellerId, nasId, routerId, free: [] };
      hotspots.push(spot);
      puts.push(() =>
        Nas.put({
          nas_id: nasId,
          reseller_id: resellerId,
          reseller_name: `Load ${r}`,
          vlan_id: 10,
          kind: 'vlan',
        }),
      );
      puts.push(() =>
        Router.put({
          router_id: routerId,
          reseller_id: resellerId,
          name: `load ${r}/${h}`,
          nas_ids: [nasId],
          transport: 'udp',
          source_ip: `10.${r}.${h}.1`,
          status: 'active',
          created_at: new Date().toISOString(),
        }),
      );
      for (let c = 0; c < o.codesPerHotspot; c++) {
        const code = paidCode(
          resellerId,
          { data_limit_mb: 100_000 },
          { code: `L${run}${r}H${h}C${c}`.toUpperCase() },
        );
        spot.free.push(code.code);
        puts.push(() => Access.put(code));
      }
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < puts.length) await (puts[next++] as () => Promise<unknown>)();
    }),
  );
  return hotspots;
}

/** Runs the load and reports it. The API must run in this process (its client is instrumented). */
export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  const ledger = new WriteLedger();
  installWriteLedger(ddb(), ledger);
  ledger.paused = true;
  const hotspots = await seedNetwork(o);
  const bearer = await getSecret('RADIUS_API_SECRET');
  const webhookSecret = await getSecret('WEBHOOK_SECRET');
  const forfaitId = (SEED_FORFAITS[0] as { id: string }).id;
  ledger.paused = false;

  const latencies = new Map<string, number[]>();
  let requests = 0;
  let failed = 0;
  const send = async (route: string, path: string, init: RequestInit, ok: (status: number) => boolean) => {
    const t0 = performance.now();
    const base = path.startsWith('/api/v1/radius/') ? o.frontUrl : o.baseUrl;
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    const ms = performance.now() - t0;
    requests += 1;
    if (!ok(res.status)) {
      failed += 1;
      if (failed <= 5) console.error(`loadtest: ${route} answered ${res.status}: ${text.slice(0, 200)}`);
    }
    (latencies.get(route) ?? latencies.set(route, []).get(route))?.push(ms);
    return { status: res.status, text };
  };
  const radius = (route: 'authorize' | 'post-auth' | 'accounting', body: Record<string, unknown>) =>
    send(
      `POST /api/v1/radius/${route}`,
      `/api/v1/radius/${route}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      (s) => s < 300,
    );

  let macs = 0;
  let logins = 0;
  const live: Live[] = [];
  const started = performance.now();
  const deadline = started + o.seconds * 1000;
  const cap = deadline + 30_000;
  const going = () => {
    const now = performance.now();
    return now < deadline || (logins < (o.minSessions ?? 0) && now < cap);
  };

  const login = async (hotspot: Hotspot) => {
    const code = hotspot.free.pop() as string;
    macs += 1;
    const mac = `02:00:${((macs >> 16) & 255).toString(16).padStart(2, '0')}:${((macs >> 8) & 255)
      .toString(16)
      .padStart(2, '0')}:${(macs & 255).toString(16).padStart(2, '0')}:01`;
    const base = {
      'User-Name': attr(code),
      'NAS-Identifier': attr(hotspot.nasId),
      'Calling-Station-Id': attr(mac),
      'Hotspot-Router-Id': attr(hotspot.routerId),
    };
    await radius('authorize', { ...base, 'User-Password': attr(code) });
    await radius('post-auth', base);
    const s: Live = {
      hotspot,
      code,
      mac,
      id: randomUUID().replace(/-/g, ''),
      interims: 0,
      bytes: 0,
      time: 0,
    };
    await accounting(s, 'Start');
    live.push(s);
  };
  const accounting = (s: Live, status: 'Start' | 'Interim-Update' | 'Stop') =>
    radius('accounting', {
      'Acct-Status-Type': attr(status),
      'User-Name': attr(s.code),
      'NAS-Identifier': attr(s.hotspot.nasId),
      'Calling-Station-Id': attr(s.mac),
      'Acct-Session-Id': attr(s.id.slice(0, 8)),
      'Acct-Unique-Session-Id': attr(s.id),
      'Acct-Input-Octets': attr(Math.floor(s.bytes / 10)),
      'Acct-Output-Octets': attr(s.bytes - Math.floor(s.bytes / 10)),
      'Acct-Session-Time': attr(s.time),
      'Hotspot-Router-Id': attr(s.hotspot.routerId),
    });
  const pay = async (hotspot: Hotspot) => {
    const { transaction_id } = await initiatePayment({
      subscriberId: randomUUID(),
      forfaitId,
      provider: 'orange_money',
      nasId: hotspot.nasId,
    });
    const payment = await getPayment(transaction_id);
    await send(
      'POST /api/v1/payments/webhook',
      '/api/v1/payments/webhook',
      {
        method: 'POST',
        headers: { 'x-provider-secret': webhookSecret, 'content-type': 'application/json' },
        body: JSON.stringify({
          event_id: randomUUID(),
          transaction_id,
          status: 'completed',
          amount_fcfa: payment?.amount_fcfa,
          provider: 'orange_money',
        }),
      },
      (s) => s === 200,
    );
  };

  // Sessions live at once: enough that every worker finds one to advance, few enough that
  // each goes through its interims to its Stop within the run.
  const target = o.workers * 4;
  let turn = 0;
  const worker = async () => {
    while (going()) {
      if (live.length < target) {
        const hotspot = hotspots[turn++ % hotspots.length] as Hotspot;
        if (hotspot.free.length === 0) {
          await new Promise((r) => setImmediate(r));
          continue;
        }
        logins += 1;
        if (logins % PAY_EVERY === 0) await pay(hotspot);
        await login(hotspot);
        continue;
      }
      const s = live.splice(Math.floor(Math.random() * live.length), 1)[0] as Live;
      s.bytes += 1_000_000 + Math.floor(Math.random() * 5_000_000);
      s.time += 300;
      if (s.interims < (o.interims ?? INTERIMS)) {
        s.interims += 1;
        await accounting(s, 'Interim-Update');
        live.push(s);
      } else {
        await accounting(s, 'Stop');
        s.hotspot.free.unshift(s.code);
      }
    }
  };
  await Promise.all(Array.from({ length: o.workers }, worker));
  await o.settle?.();
  ledger.paused = true;
  return report(ledger, latencies, requests, failed, {
    ...o,
    seconds: Math.round((performance.now() - started) / 1000),
  });
}

/**
 * Conflicts on items many requests share (a counter, a reseller's month, a budget), as opposed
 * to the one session's or code's own items, which only that session's reports write.
 */
const OWN_ITEM = /^table (SESSION|CODE)#/;

export function sharedConflicts(r: Pick<LoadReport, 'conflicts'>): number {
  return r.conflicts.filter((c) => !OWN_ITEM.test(c.key)).reduce((n, c) => n + c.count, 0);
}

/** The printed report: requests, latencies per route, conflicts, top keys, the hottest key. */
export function report(
  ledger: WriteLedger,
  latencies: Map<string, number[]>,
  requests: number,
  failed: number,
  o: Pick<LoadOptions, 'seconds' | 'workers' | 'resellers' | 'hotspots'>,
): LoadReport {
  const routes = [...latencies]
    .map(([route, ms]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return { route, requests: ms.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    })
    .sort((a, b) => b.requests - a.requests);
  const shares = ledger.shares();
  const writes = shares.reduce((n, s) => n + s.writes, 0);
  const conflicts = [...ledger.conflicts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count);
  const pct = (x: number) => (x * 100).toFixed(2);
  const lines = [
    `load: ${o.resellers} resellers x ${o.hotspots} hotspots, ${o.workers} requests in flight, ${o.seconds} s`,
    `requests: ${requests} (${(requests / o.seconds).toFixed(0)}/s), failed: ${failed}`,
    ...routes.map(
      (r) =>
        `route ${r.route}: ${r.requests} requests, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`,
    ),
    `writes: ${writes} (table and index partitions together), keys written: ${shares.length}`,
    `transaction conflicts: ${conflicts.reduce((n, c) => n + c.count, 0)}${
      conflicts.length
        ? ` (${conflicts
            .slice(0, 5)
            .map((c) => `${c.key} ${c.count}`)
            .join(', ')})`
        : ''
    }`,
    `conflicts on shared items: ${sharedConflicts({ conflicts })}`,
    `top ${TOP} keys by share of writes:`,
    ...shares.slice(0, TOP).map((s) => `  ${s.key} ${s.writes} ${pct(s.share)} %`),
    'hottest key of each kind (ids as <id>, shards as <n>: how many keys of the kind):',
    ...hottestByKind(shares)
      .slice(0, 2 * TOP)
      .map((s) => `  ${s.kind}: ${s.key} ${pct(s.share)} % (${s.keys} ${s.keys === 1 ? 'key' : 'keys'})`),
    `hottest key: ${shares[0] ? `${shares[0].key} ${pct(shares[0].share)} %` : 'none'}`,
  ];
  return { requests, failed, routes, writes, shares, conflicts, hottest: shares[0], lines };
}
