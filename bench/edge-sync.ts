// `npm run bench -- --only edge-sync`: an edge's replica sync at a national stock (first sync, then one after 10 changes).
import { randomUUID } from 'node:crypto';
import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemClient, tableName } from '../functions/core/ddb.js';
import type { EdgePrincipal } from '../functions/core/principal.js';
import { type ReplicaPage, replicaPage } from '../functions/edge/replica.js';
import { Access, accessCodeCreate, revokeAccessCode } from '../functions/store/access-codes.js';
import { transact } from '../functions/store/entity.js';
import { paidCode } from '../test/support/access.js';
import { probeDdb } from '../test/support/ddb-instrument.js';
import { withLocalStack } from './stack.js';

/**
 * The region's side of an edge's sync (functions/edge/replica.ts) on DynamoDB Local: a reseller
 * holding EDGE_BENCH_CODES sellable codes (default 200,000: printed cards sold an hour ago), its
 * edge's first sync page after page, then a sync after 10 changes (8 sales, 2 revocations).
 * Calls and read units are DynamoDB Local's (`ReturnConsumedCapacity`), the time this process's.
 */
interface SyncFigure {
  ms: number;
  pages: number;
  codes: number;
  calls: number;
  queries: number;
  readUnits: number;
  bytes: number;
}

async function sync(edge: EdgePrincipal, cursor?: string): Promise<SyncFigure & { cursor?: string }> {
  const probe = probeDdb();
  probe.reset();
  const t0 = performance.now();
  const pages: ReplicaPage[] = [];
  let ask: { cursor?: string; page?: string } = cursor ? { cursor } : {};
  for (;;) {
    const page = await replicaPage(edge, ask, Date.now());
    pages.push(page);
    if (!page.next_page) break;
    ask = { page: page.next_page };
  }
  const ms = performance.now() - t0;
  const last = pages.at(-1)?.cursor;
  return {
    ms,
    pages: pages.length,
    codes: pages.reduce((n, p) => n + p.codes.length + p.removed.length, 0),
    calls: probe.calls.length,
    queries: probe.calls.filter((c) => c === 'QueryCommand').length,
    readUnits: probe.consumed.reduce((n, c) => n + c.readUnits, 0),
    bytes: Math.max(...pages.map((p) => Buffer.byteLength(JSON.stringify(p)))),
    ...(last ? { cursor: last } : {}),
  };
}

export async function edgeSyncSection(): Promise<string[]> {
  const total = Number(process.env.EDGE_BENCH_CODES ?? 200_000);
  return withLocalStack('bench-edge-sync', async () => {
    const resellerId = randomUUID();
    const edge: EdgePrincipal = { role: 'edge', edgeId: randomUUID(), resellerIds: [resellerId] };
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const t0 = performance.now();
    for (let i = 0; i < total; i += 25 * 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, b) => {
          const from = i + b * 25;
          const n = Math.min(25, total - from);
          if (n <= 0) return;
          const items = Array.from({ length: n }, () =>
            Access.item(
              paidCode(resellerId, {}, { source: 'voucher', voucher_status: 'active', created_at: hourAgo }),
            ),
          );
          await itemClient().send(
            new BatchWriteItemCommand({
              RequestItems: {
                [tableName()]: items.map((it) => ({
                  PutRequest: { Item: marshall(it, { removeUndefinedValues: true }) },
                })),
              },
            }),
          );
        }),
      );
    }
    process.stdout.write(
      `edge sync: ${total} codes written in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
    );
    const first = await sync(edge);
    if (first.codes !== total) throw new Error(`the first sync read ${first.codes} of ${total} codes`);
    // 10 changes: 8 sales and 2 revocations.
    const sold = Array.from({ length: 8 }, () => paidCode(resellerId));
    await transact(Object.fromEntries(sold.map((c, i) => [`c${i}`, accessCodeCreate(c)])));
    const someCodes = (await replicaPage(edge, {}, Date.now(), '', 2)).codes;
    for (const c of someCodes) await revokeAccessCode(c.code, new Date().toISOString());
    const later = await sync(edge, first.cursor);
    if (later.codes !== 10) throw new Error(`the sync after 10 changes read ${later.codes}`);
    const row = (name: string, f: SyncFigure) =>
      `| ${name} | ${f.codes.toLocaleString('en')} | ${(f.ms / 1000).toFixed(2)} | ${f.pages} | ${f.calls} (${f.queries} queries) | ${f.readUnits.toFixed(1)} | ${(f.bytes / 1024 ** 2).toFixed(2)} |`;
    return [
      `## The edge's replica sync (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      '',
      `The region's side of an edge's sync on DynamoDB Local, a reseller holding ${total.toLocaleString('en')} sellable codes (bench/edge-sync.ts, \`npm run bench -- --only edge-sync\`):`,
      '',
      '| Sync | Codes read | Time (s) | Pages | DynamoDB calls | Read units | Largest page (MB) |',
      '|---|---:|---:|---:|---:|---:|---:|',
      row('first sync (whole stock, paged)', first),
      row('after 10 changes (since the cursor)', later),
      '',
      `Per change: ${(later.readUnits / 10).toFixed(2)} read units and ${(later.calls / 10).toFixed(1)} calls, of which the 16 shard queries are a fixed ${later.queries} per sync.`,
    ];
  });
}
