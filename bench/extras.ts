import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { localClient } from '../bin/local/dynamodb-local.js';
import { createTable, seed } from '../bin/local/table.js';
import { SEED_FORFAITS } from '../functions/billing/catalogue.js';
import { newCode } from '../functions/billing/codes.js';
import { initiatePayment } from '../functions/billing/payments/initiate.js';
import { resetConfig } from '../functions/core/config.js';
import { ddb } from '../functions/core/ddb.js';
import { allocateVlan } from '../functions/network/vlans.js';
import { Access } from '../functions/store/access-codes.js';
import type { TxItem } from '../functions/store/entity.js';
import { recordReseller } from '../functions/store/resellers.js';
import type { DdbProbe } from '../test/support/ddb-instrument.js';
import { webhookSettlement } from '../test/support/webhook.js';
import { load } from './load.js';
import type { BenchContext } from './scenarios.js';

export interface ExtraFigure {
  name: string;
  lines: string[];
  [figure: string]: unknown;
}

/** Runs `fn` on a fresh table (so a figure does not depend on what ran before), then restores. */
async function onFreshTable<T>(fn: () => Promise<T>): Promise<T> {
  const previous = process.env.TABLE_NAME;
  const name = `bench-${randomUUID().slice(0, 8)}`;
  const client = localClient(process.env.DYNAMODB_ENDPOINT as string);
  // No stream: no consumer reads these figures' tables (and a stream slows DynamoDB Local's writes).
  await createTable(client, name, { stream: false });
  client.destroy();
  process.env.TABLE_NAME = name;
  resetConfig();
  try {
    return await fn();
  } finally {
    process.env.TABLE_NAME = previous;
    resetConfig();
  }
}

/** 400 parallel VLAN allocations: wall time, and DynamoDB calls per allocation (races included). */
async function vlanAllocations(probe: DdbProbe): Promise<ExtraFigure> {
  return onFreshTable(async () => {
    probe.reset();
    const start = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: 400 }, (_, i) =>
        allocateVlan({ resellerId: randomUUID(), resellerName: `Bench ${i}`, siteCount: 1 }),
      ),
    );
    const seconds = (performance.now() - start) / 1000;
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const calls = probe.calls.length / 400;
    return {
      name: 'vlan_allocations_400_parallel',
      seconds,
      succeeded: ok,
      ddb_calls_per_allocation: calls,
      lines: [
        '## 400 parallel VLAN allocations',
        '',
        `${ok}/400 allocated in ${seconds.toFixed(1)} s; ${calls.toFixed(1)} DynamoDB calls per allocation ` +
          '(one read of the 50 stripes and one transaction per attempt; the rest are races lost on a stripe, retried).',
      ],
    };
  });
}

/** Completes `count` payments of a hotspot through the real initiate + webhook path. */
async function completePayments(nasId: string, count: number): Promise<void> {
  const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        next += 1;
        const p = await initiatePayment({
          subscriberId: randomUUID(),
          forfaitId: forfait.id,
          provider: 'wave',
          nasId,
        });
        await webhookSettlement({
          event_id: randomUUID(),
          transaction_id: p.transaction_id,
          status: 'completed',
          amount_fcfa: forfait.price_fcfa,
          provider: 'wave',
        });
      }
    }),
  );
}

/**
 * The billing summary reads one aggregate: its latency must not grow with the number of
 * payments. Two resellers, one with 10 completed payments and one with 10,000.
 */
async function summaryFlatness(ctx: BenchContext, probe: DdbProbe): Promise<ExtraFigure> {
  const small = { id: randomUUID(), name: 'Bench Ten' };
  const large = { id: randomUUID(), name: 'Bench Ten Thousand' };
  const nas = async (r: { id: string; name: string }) =>
    (await allocateVlan({ resellerId: r.id, resellerName: r.name, siteCount: 1 })).nas_id;
  const [smallNas, largeNas] = [await nas(small), await nas(large)];
  const start = performance.now();
  await completePayments(smallNas, 10);
  await completePayments(largeNas, 10_000);
  const seedSeconds = (performance.now() - start) / 1000;
  const month = new Date().toISOString().slice(0, 7);
  const admin = { authorization: `Bearer ${ctx.tokens.admin}` };
  const measure = (r: { id: string }) =>
    load(
      ctx.baseUrl,
      () => ({
        method: 'GET',
        path: `/api/v1/billing/summary?reseller_id=${r.id}&month=${month}`,
        headers: admin,
      }),
      {
        total: 300,
        connections: 8,
      },
    );
  probe.reset();
  const ten = await measure(small);
  const callsTen = probe.calls.length / ten.requests;
  probe.reset();
  const tenThousand = await measure(large);
  const callsTenThousand = probe.calls.length / tenThousand.requests;
  const ratio = tenThousand.p50 / ten.p50;
  return {
    name: 'billing_summary_flatness',
    p50_10: ten.p50,
    p50_10000: tenThousand.p50,
    ratio,
    ddb_calls: { ten: callsTen, ten_thousand: callsTenThousand },
    seed_seconds: seedSeconds,
    lines: [
      '## Billing summary: 10 vs 10,000 completed payments',
      '',
      '| payments | p50 ms | p95 ms | DynamoDB calls/req |',
      '|---:|---:|---:|---:|',
      `| 10 | ${ten.p50.toFixed(2)} | ${ten.p95.toFixed(2)} | ${callsTen.toFixed(1)} |`,
      `| 10,000 | ${tenThousand.p50.toFixed(2)} | ${tenThousand.p95.toFixed(2)} | ${callsTenThousand.toFixed(1)} |`,
      '',
      `Ratio at p50: ${ratio.toFixed(2)} (target <= 1.2: ${ratio <= 1.2 ? 'met' : 'MISSED'}). ` +
        `10,010 payments completed through initiate + webhook in ${seedSeconds.toFixed(1)} s ` +
        `(${(10_010 / seedSeconds).toFixed(0)} completions/s on DynamoDB Local).`,
    ],
  };
}

/**
 * `count` voucher-sized items, each created under `attribute_not_exists(pk)`: access codes as a
 * generation makes them (the same attributes, so the same size and the same index entries), each
 * with a code of its own.
 */
function voucherItems(resellerId: string, count: number): TxItem[] {
  const forfait = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];
  const batch = randomUUID();
  const now = new Date().toISOString();
  return Array.from({ length: count }, () =>
    Access.tx.create({
      code: newCode(),
      reseller_id: resellerId,
      source: 'voucher',
      source_id: batch,
      forfait_id: forfait.id,
      forfait_name: forfait.name,
      offer: {
        duration_hours: forfait.duration_hours,
        data_limit_mb: forfait.data_limit_mb,
        cir_kbps: forfait.cir_kbps,
        mir_kbps: forfait.mir_kbps,
        max_devices: forfait.max_devices ?? 1,
      },
      price_fcfa: forfait.price_fcfa,
      currency: 'XOF',
      voucher_status: 'active',
      created_at: now,
      use_by: now,
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    }),
  );
}

/** Runs `calls` with `inFlight` of them at once; answers the wall-clock ms. */
async function inFlight(calls: (() => Promise<unknown>)[], lanes: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < calls.length) await (calls[next++] as () => Promise<unknown>)();
    }),
  );
  return performance.now() - t0;
}

/** The two cheapest ways to create 1,000 items each under a condition, as the target names them. */
const FLOORS = {
  transactions: (items: TxItem[]) =>
    inFlight(
      Array.from(
        { length: Math.ceil(items.length / 100) },
        (_, i) => () =>
          ddb().send(new TransactWriteCommand({ TransactItems: items.slice(i * 100, i * 100 + 100) })),
      ),
      4,
    ),
  puts: (items: TxItem[]) =>
    inFlight(
      items.map((t) => () => ddb().send(new PutCommand(t.Put as NonNullable<TxItem['Put']>))),
      16,
    ),
};

/** The voucher target: generation within 1.3x the faster floor. */
export const VOUCHER_TARGET = 1.3;

/**
 * One admin request generating 1000 vouchers (each its access code, created under the condition
 * that its code is free, with the batch's parts and counts) against the cheapest way to create
 * 1,000 voucher-sized items each under `attribute_not_exists` on the same DynamoDB Local: the
 * faster of TransactWriteItems of 100 items, 4 in flight, and single conditional PutItems, 16 in
 * flight. On a fresh table (the figure does not depend on what ran before), the three run one
 * after the other in each round, in an order that rotates, after two rounds not counted (the
 * emulator's JIT), 9 rounds.
 */
const ROUNDS = 9;
const WARM_UP = 2;
export async function voucherGeneration(ctx: BenchContext, probe: DdbProbe): Promise<ExtraFigure> {
  return onFreshTable(async () => {
    await seed();
    await recordReseller({ resellerId: ctx.resellerId, name: 'Bench', country: 'CI' });
    const runs: number[] = [];
    const tx: number[] = [];
    const puts: number[] = [];
    let calls = 0;
    const generate = async () => {
      probe.reset();
      const t0 = performance.now();
      const res = await fetch(`${ctx.baseUrl}/api/v1/vouchers/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.tokens.admin}` },
        body: JSON.stringify({
          n: 1000,
          forfait_id: (SEED_FORFAITS[0] as { id: string }).id,
          reseller_id: ctx.resellerId,
        }),
      });
      await res.text();
      if (res.status !== 201) throw new Error(`voucher generation answered ${res.status}`);
      calls = probe.calls.length;
      return performance.now() - t0;
    };
    for (let i = 0; i < WARM_UP + ROUNDS; i++) {
      // The three in a rotating order: none always runs first (or last) in its round.
      const three = [
        () => generate(),
        () => FLOORS.transactions(voucherItems(ctx.resellerId, 1000)),
        () => FLOORS.puts(voucherItems(ctx.resellerId, 1000)),
      ];
      const ms: number[] = [0, 0, 0];
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3;
        ms[which] = await (three[which] as () => Promise<number>)();
      }
      if (i < WARM_UP) continue;
      runs.push(ms[0] as number);
      tx.push(ms[1] as number);
      puts.push(ms[2] as number);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const spread = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${(s[0] ?? 0).toFixed(0)}-${(s[s.length - 1] ?? 0).toFixed(0)}`;
    };
    const median = med(runs);
    const floor = Math.min(med(tx), med(puts));
    // The median of the rounds' ratios: a round's three runs share the machine's state of the
    // moment (a busy neighbour slows all three), where medians taken apart do not.
    const ratio = med(runs.map((r, i) => r / Math.min(tx[i] as number, puts[i] as number)));
    const ratioOfMedians = median / floor;
    return {
      name: 'voucher_generation_1000',
      median_ms: median,
      transactions_100_x4_ms: med(tx),
      conditional_puts_x16_ms: med(puts),
      floor_ms: floor,
      ratio,
      ratio_of_medians: ratioOfMedians,
      ddb_calls: calls,
      lines: [
        '## Generating 1000 vouchers (one request) against the cheapest conditional writes',
        '',
        `| what | median of ${ROUNDS}, ms | range, ms |`,
        '|---|---:|---:|',
        `| POST /api/v1/vouchers/generate n=1000 (1,000 codes, each conditional) | ${median.toFixed(0)} | ${spread(runs)} |`,
        `| floor: TransactWriteItems of 100 voucher-sized items, 4 in flight | ${med(tx).toFixed(0)} | ${spread(tx)} |`,
        `| floor: conditional PutItem of each, 16 in flight | ${med(puts).toFixed(0)} | ${spread(puts)} |`,
        '',
        `Ratio to the faster floor, median of the rounds' ratios: ${ratio.toFixed(2)}x (target <= ${VOUCHER_TARGET}: ${ratio <= VOUCHER_TARGET ? 'met' : 'MISSED'}; ` +
          `ratio of the medians ${ratioOfMedians.toFixed(2)}x); ` +
          `${calls} DynamoDB calls for the generation. Each item of all three is created under ` +
          '`attribute_not_exists(pk)`; on a fresh table, the three one after the other in each round (the order rotating), after 2 rounds not counted.',
      ],
    };
  });
}

/** Figures specific to an area. */
export async function extraFigures(ctx: BenchContext, probe: DdbProbe): Promise<ExtraFigure[]> {
  return [
    await vlanAllocations(probe),
    await summaryFlatness(ctx, probe),
    await voucherGeneration(ctx, probe),
  ];
}
