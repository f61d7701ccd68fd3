/**
 * `npm run bench`: every figure measured in one run on this machine, printed as a markdown table
 * and written to bench/results/latest.json. Compared with docs/bench-baseline.json when present.
 *   BENCH_REQUESTS (default 300) requests per endpoint, BENCH_CONNECTIONS (default 8).
 *   `npm run bench -- --only import`: the bundles and their import times only (bench/bundle.ts),
 *   BENCH_IMPORT_RUNS (default 21) rounds per function.
 *   `npm run bench -- --skip import`: everything else (the import rounds take the longest; the
 *   bundle section of docs/bench.md then stays as its last run wrote it).
 *   `npm run bench -- --only radius`: the RADIUS section alone (the project's exchanges through
 *   FreeRADIUS, the SQL peers on SQLite and MariaDB, the floors), written into docs/bench.md; BENCH_RADIUS_EXCHANGES
 *   (default 1000) exchanges of each kind; BENCH_API_PROF=<dir> writes a V8 CPU profile of the API.
 *   `npm run bench -- --only vouchers`: the voucher generation against its floors alone, written
 *   into docs/bench.md.
 *   `npm run bench -- --only screens`: the portal's and the console's weights and times on 3G
 *   and 2G alone, written into docs/bench.md.
 *   `npm run bench -- --only edge-sync`: an edge's replica sync at a national stock (bench/edge-sync.ts,
 *   EDGE_BENCH_CODES, default 200,000), written into docs/bench.md; not part of the full run.
 *   `npm run bench -- --only edge-journal`: the in-country edge's journal replayed, 1 GiB of it
 *   (bench/edge-journal.ts), written into docs/bench.md; not part of the full run (it writes and
 *   reads a GiB).
 */
import './preamble.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DEMO_RESELLER_MSISDN, seedDemo } from '../bin/local/demo.js';
import { signSession } from '../functions/auth/tokens.js';
import { ddb, tableName } from '../functions/core/ddb.js';
import { recordReseller } from '../functions/store/resellers.js';
import { writeSection, writeSections } from '../test/support/bench-doc.js';
import { CONSOLE_BUDGET, measureConsole, otpLogin } from '../test/support/console-figures.js';
import { probeDdb } from '../test/support/ddb-instrument.js';
import { measurePortal, measureSmsPerSale } from '../test/support/portal-figures.js';
import { bundleSection, importOnly } from './bundle.js';
import { edgeJournalSection } from './edge-journal.js';
import { edgeSyncSection } from './edge-sync.js';
import { extraFigures, voucherGeneration } from './extras.js';
import { load } from './load.js';
import { paymentFigures } from './payments.js';
import { radiusFigures, radiusSection } from './radius.js';
import { type BenchContext, scenarios } from './scenarios.js';
import { withLocalStack } from './stack.js';

const ROOT = resolve(import.meta.dirname, '..');
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 300);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const TARGET = { ddbCalls: 2, summaryRatio: 1.2, overhead: 1.3 };

const RADIUS_EXCHANGES = Number(process.env.BENCH_RADIUS_EXCHANGES ?? 1000);
const ms = (v: number) => v.toFixed(2);

/**
 * The RADIUS section on a local stack of its own, in the full run as with `--only radius`: its
 * CPU per exchange is then measured against a fresh DynamoDB Local, not one that the earlier
 * sections filled with thousands of payments and vouchers (whose JVM then takes more of the two
 * cores and their caches: 0.2-0.4 ms more per exchange in the API, a figure of the emulator, not
 * of the code).
 */
async function radiusOnOwnStack(): Promise<Awaited<ReturnType<typeof radiusFigures>>> {
  return withLocalStack(
    'bench',
    async ({ dynamoPid }) => {
      const admin = await signSession({ sub: crypto.randomUUID(), role: 'admin', ref: 'SUB-2250700000002' });
      return radiusFigures({ dynamoPid, total: RADIUS_EXCHANGES, adminToken: admin.token });
    },
    { stream: true },
  );
}

/** `--only radius`: the RADIUS section alone, written into docs/bench.md. */
async function radiusOnly(): Promise<void> {
  const radius = await radiusOnOwnStack();
  const lines = radiusSection(radius);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench', 'results', 'radius.json'),
    `${JSON.stringify({ measured_at: new Date().toISOString(), node: process.version, radius }, null, 2)}\n`,
  );
  writeSection(ROOT, lines);
  process.stdout.write(
    `${lines.join('\n')}\nJSON: bench/results/radius.json; section written to docs/bench.md\n`,
  );
}

/** `--only edge-journal`: the edge's journal replayed (1 GiB of it), written into docs/bench.md. */
async function edgeJournalOnly(): Promise<void> {
  const lines = await edgeJournalSection();
  writeSection(ROOT, lines);
  process.stdout.write(`${lines.join('\n')}\nsection written to docs/bench.md\n`);
}

/** `--only vouchers`: the voucher generation against its floors, on a local stack, written into docs/bench.md. */
async function vouchersOnly(): Promise<void> {
  const figure = await withLocalStack('bench', async ({ url }) => {
    const resellerId = '7d3c8a2e-5b1f-4c9a-8e2d-1f0a9b8c7d6e';
    await recordReseller({ resellerId, name: 'Bench', country: 'CI' });
    const token = async (role: 'subscriber' | 'reseller' | 'admin') =>
      (
        await signSession({
          sub: crypto.randomUUID(),
          role,
          ref: 'SUB-2250700000002',
          ...(role === 'reseller' ? { resellerId } : {}),
        } as Parameters<typeof signSession>[0])
      ).token;
    const ctx: BenchContext = {
      baseUrl: url,
      resellerId,
      tokens: {
        subscriber: await token('subscriber'),
        reseller: await token('reseller'),
        admin: await token('admin'),
      },
    };
    return voucherGeneration(ctx, probeDdb());
  });
  const { lines, ...json } = figure;
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench', 'results', 'vouchers.json'),
    `${JSON.stringify({ measured_at: new Date().toISOString(), node: process.version, ...json }, null, 2)}\n`,
  );
  writeSection(ROOT, lines);
  process.stdout.write(
    `${lines.join('\n')}\nJSON: bench/results/vouchers.json; section written to docs/bench.md\n`,
  );
}

/** The captive portal's section: its weight, and its phone field on 3G and 2G. */
async function portalLines(url: string, nasId: string): Promise<string[]> {
  const portal = await measurePortal(url, nasId);
  return [
    '## Captive portal (Debian chromium, 360 px)',
    '',
    '| figure | value | target |',
    '|---|---:|---:|',
    `| first load, bytes transferred | ${portal.firstLoadBytes} | <= 61440 |`,
    `| repeat load, bytes transferred | ${portal.repeatLoadBytes} | from cache |`,
    `| phone field usable on 3G (1.6 Mbit/s, 150 ms) | ${portal.phoneFieldUsableMs3G} ms | <= 3000 ms |`,
    `| phone field usable on 2G (250 kbit/s, 300 ms) | ${portal.phoneFieldUsableMs2G} ms | <= 3000 ms |`,
    '',
  ];
}

/** The console's section: its weights, and the login page and the dashboard on 3G and 2G. */
async function consoleLines(url: string, token: string) {
  const figures = await measureConsole(url, { token, msisdn: DEMO_RESELLER_MSISDN });
  const budget = CONSOLE_BUDGET.dashboardUsableMs;
  const timed = (['3G', '2G'] as const).flatMap((name) => {
    const link = figures.links[name];
    const quoted = name === '3G' ? '1.6 Mbit/s, 150 ms' : '250 kbit/s, 300 ms';
    return [
      `| ${name} (${quoted}): login page usable | ${link.loginMs} ms | - |`,
      `| ${name}: dashboard usable (its figures), ${link.figuresBytes} B by then | ${link.figuresMs} ms | <= ${budget} ms |`,
      `| ${name}: dashboard's chart drawn | ${link.chartMs} ms | after the figures |`,
    ];
  });
  return {
    figures,
    lines: [
      '## Console (Debian chromium, 360 px, a reseller)',
      '',
      "Times from navigation start, cache off, through Chromium's network emulation (CDP); the",
      'reseller is logged in (its token in the tab) for the dashboard rows.',
      '',
      '| figure | value | target |',
      '|---|---:|---:|',
      `| login page, cold cache, bytes transferred | ${figures.loginBytes} | <= ${CONSOLE_BUDGET.loginBytes} |`,
      `| dashboard with its chart, cold cache, bytes transferred | ${figures.dashboardBytes} | <= ${CONSOLE_BUDGET.dashboardBytes} |`,
      `| dashboard again, bytes transferred | ${figures.repeatBytes} | assets from cache (${figures.repeatFromCache.length}) |`,
      ...timed,
      '',
    ],
  };
}

/** `--only screens`: the portal's and the console's sections alone, on a local stack, written into docs/bench.md. */
async function screensOnly(): Promise<void> {
  const lines = await withLocalStack('bench', async ({ url, outbox }) => {
    const { nasId } = await seedDemo();
    const portal = await portalLines(url, nasId);
    const screen = await consoleLines(url, await otpLogin(url, DEMO_RESELLER_MSISDN, outbox));
    return [...portal, ...screen.lines];
  });
  writeSections(ROOT, lines);
  process.stdout.write(`${lines.join('\n')}\nsections written to docs/bench.md\n`);
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = { measured_at: new Date().toISOString(), node: process.version };
  const lines: string[] = [];

  // 1. Bundles and cold-start proxy (bench/bundle.ts; `--only import` runs it alone).
  const only = process.argv.indexOf('--only');
  if (only >= 0) {
    const part = process.argv[only + 1];
    if (part === 'radius') return radiusOnly();
    if (part === 'vouchers') return vouchersOnly();
    if (part === 'screens') return screensOnly();
    if (part === 'edge-journal') return edgeJournalOnly();
    if (part === 'edge-sync') {
      const lines = await edgeSyncSection();
      writeSection(ROOT, lines);
      process.stdout.write(`${lines.join('\n')}\nsection written to docs/bench.md\n`);
      return;
    }
    if (part !== 'import')
      throw new Error(
        `--only ${part}: the parts that run alone are "import", "radius", "vouchers", "screens", "edge-journal" and "edge-sync"`,
      );
    await importOnly(ROOT);
    return;
  }
  const baselineFile = join(ROOT, 'docs', 'bench-baseline.json');
  const previous = existsSync(baselineFile) ? JSON.parse(readFileSync(baselineFile, 'utf8')) : undefined;
  const skip = process.argv.indexOf('--skip');
  if (skip >= 0 && process.argv[skip + 1] !== 'import')
    throw new Error(`--skip ${process.argv[skip + 1]}: the one part that can be skipped is "import"`);
  let bundleLines = 0;
  if (skip < 0) {
    const bundles = await bundleSection(ROOT, previous);
    bundleLines = bundles.lines.length;
    Object.assign(results, bundles.json);
    lines.push(...bundles.lines);
    writeSection(ROOT, bundles.lines);
  }

  // 2. The network edge: RADIUS through FreeRADIUS and the API, on a stack of its own.
  const radius = await radiusOnOwnStack();
  results.radius = radius;
  const radiusLines = radiusSection(radius);

  // 3. The API under load, on DynamoDB Local.
  await withLocalStack('bench', async ({ url, outbox }) => {
    const resellerId = '7d3c8a2e-5b1f-4c9a-8e2d-1f0a9b8c7d6e';
    // Vouchers are made only for a reseller on record.
    await recordReseller({ resellerId, name: 'Bench', country: 'CI' });
    const ctx: BenchContext = {
      baseUrl: url,
      resellerId,
      tokens: {
        subscriber: (
          await signSession({ sub: crypto.randomUUID(), role: 'subscriber', ref: 'SUB-2250700000000' })
        ).token,
        reseller: (
          await signSession({
            sub: crypto.randomUUID(),
            role: 'reseller',
            ref: 'SUB-2250700000001',
            resellerId,
          })
        ).token,
        admin: (await signSession({ sub: crypto.randomUUID(), role: 'admin', ref: 'SUB-2250700000002' }))
          .token,
      },
    };
    const probe = probeDdb();
    const endpointRows = [];
    for (const s of scenarios) {
      const next = await s.prepare(ctx, TOTAL + 20);
      // DynamoDB calls per request, over 20 sequential requests.
      probe.reset();
      for (let i = 0; i < 20; i++) {
        const spec = next(TOTAL + i);
        await fetch(`${url}${spec.path}`, {
          method: spec.method,
          headers: { ...(spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers },
          ...(spec.body ? { body: spec.body } : {}),
        });
      }
      const calls = probe.calls.length / 20;
      const figure = await load(url, next, { total: TOTAL, connections: CONNECTIONS });
      const ok = figure.statuses[s.expect] ?? 0;
      endpointRows.push({
        route: s.route,
        ...figure,
        ddb_calls_per_request: calls,
        ok_ratio: ok / figure.requests,
      });
    }
    results.endpoints = endpointRows;
    lines.push(`## Endpoints through the local server (${TOTAL} requests, ${CONNECTIONS} connections)`, '');
    lines.push(
      '| route | p50 ms | p95 ms | p99 ms | req/s | DynamoDB calls/req | expected status |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of endpointRows) {
      lines.push(
        `| ${r.route} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${r.rps.toFixed(0)} | ${r.ddb_calls_per_request.toFixed(1)} | ${(r.ok_ratio * 100).toFixed(0)}% |`,
      );
    }
    const over = endpointRows.filter((r) => r.ddb_calls_per_request > TARGET.ddbCalls);
    lines.push(
      '',
      `Routes over ${TARGET.ddbCalls} DynamoDB round trips: ${over.map((r) => `${r.route} (${r.ddb_calls_per_request})`).join(', ') || 'none'}`,
      '',
    );

    // 4. Overhead: the same DynamoDB call (the forfaits Query) behind a bare node http handler.
    const bareServer = createServer(async (_req, res) => {
      const out = await ddb().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'FORFAITS#ACTIVE' },
        }),
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: out.Items ?? [] }));
    });
    await new Promise<void>((r) => bareServer.listen(0, '127.0.0.1', () => r()));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
    // Alternating rounds, median of their p50s: a single round is at the mercy of the scheduler.
    const rounds = {
      baseline: [] as number[],
      ours: [] as number[],
      baseline95: [] as number[],
      ours95: [] as number[],
    };
    for (let round = 0; round < 5; round++) {
      const b = await load(bareUrl, () => ({ method: 'GET', path: '/' }), {
        total: TOTAL,
        connections: CONNECTIONS,
      });
      const o = await load(url, () => ({ method: 'GET', path: '/api/v1/forfaits' }), {
        total: TOTAL,
        connections: CONNECTIONS,
      });
      rounds.baseline.push(b.p50);
      rounds.ours.push(o.p50);
      rounds.baseline95.push(b.p95);
      rounds.ours95.push(o.p95);
    }
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
    const baseline = { p50: med(rounds.baseline), p95: med(rounds.baseline95) };
    const ours = { p50: med(rounds.ours), p95: med(rounds.ours95) };
    bareServer.close();
    const overhead = ours.p50 / baseline.p50;
    results.overhead = { baseline_p50: baseline.p50, forfaits_p50: ours.p50, ratio: overhead };
    lines.push(
      '## Framework overhead (median of 5 alternating rounds)',
      '',
      '| handler | p50 ms | p95 ms |',
      '|---|---:|---:|',
    );
    lines.push(`| bare node http + same Query | ${ms(baseline.p50)} | ${ms(baseline.p95)} |`);
    lines.push(
      `| GET /api/v1/forfaits (endpoint wrapper, local server) | ${ms(ours.p50)} | ${ms(ours.p95)} |`,
    );
    lines.push(
      '',
      `Overhead at p50: ${overhead.toFixed(2)}x (target <= ${TARGET.overhead}: ${overhead <= TARGET.overhead ? 'met' : 'MISSED'})`,
      '',
    );

    // 5. Area figures (billing summary flatness, VLAN allocation, voucher generation...).
    const extras = await extraFigures(ctx, probe);
    results.extras = extras.map(({ lines: _l, ...rest }) => rest);
    for (const e of extras) lines.push(...e.lines, '');
    lines.push(...radiusLines, '');

    // 6. Money: a provider's notification through its signature check and status check.
    const payments = await paymentFigures(url, probe);
    results.payments = payments.map(({ lines: _l, ...rest }) => rest);
    lines.push('## Payment notifications (local fake providers)', '');
    for (const p of payments) lines.push(...p.lines, '');

    // 7. The captive portal in Debian's chromium: weight and the 2G time.
    const { nasId } = await seedDemo();
    lines.push(...(await portalLines(url, nasId)));

    // 8. SMS per sale through the portal page, counted in the local outbox.
    const sms = await measureSmsPerSale(
      `${url}/portal/${encodeURIComponent(nasId)}`,
      outbox,
      '+2250701020304',
      {
        revoke: async (device_token) => {
          await fetch(`${url}/api/v1/auth/device/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ device_token }),
          });
        },
      },
    );
    results.sms_per_sale = sms;
    lines.push(
      '## SMS per sale (portal in Debian chromium, local outbox)',
      '',
      '| sale | SMS | target |',
      '|---|---:|---:|',
      `| first purchase on a new phone | ${sms.firstPurchase} | <= 1 |`,
      `| same phone again (device credential) | ${sms.returningDevice} | 0 |`,
      `| after "forget this device" | ${sms.afterRevocation} | <= 1 |`,
      '',
    );

    // 9. The console in Debian's chromium: the login page, the dashboard, and the dashboard on 3G.
    const token = await otpLogin(url, DEMO_RESELLER_MSISDN, outbox);
    const screen = await consoleLines(url, token);
    results.console = screen.figures;
    lines.push(...screen.lines);
  });

  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  if (previous) {
    const before = previous as { measured_at?: string };
    lines.push(`Previous figures: docs/bench-baseline.json (measured ${before.measured_at ?? '?'}).`);
  }
  // Every section measured goes into docs/bench.md (the bundle one is written as soon as it is done).
  writeSections(ROOT, lines.slice(bundleLines));
  process.stdout.write(
    `# npm run bench\n\n${lines.join('\n')}\nJSON: bench/results/latest.json; sections written to docs/bench.md\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
