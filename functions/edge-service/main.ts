// The in-country edge's service as its own process: settings read, the service started, stopped on a signal.

/**
 * The in-country edge's service (docs/outage.md): `node edge.mjs` (built by `npm run edge:build`
 * into dist/hotspot-edge/, installed by its install.sh) or `tsx functions/edge-service/main.ts`
 * from a checkout. Every setting comes from the environment (the installer writes
 * /etc/hotspot-edge/edge.env); the token from a file only, never the command line nor the
 * environment another process could read:
 *
 *   EDGE_REGION_URL   the region's API (https://api.example.com)
 *   EDGE_TOKEN_FILE   the file holding this edge's token (`npm run admin -- edges add`)
 *   EDGE_LOCAL_SECRET the bearer its FreeRADIUS sends (its RADIUS_API_SECRET), on loopback only
 *   EDGE_DATA_DIR     the replica and the journal (default /var/lib/hotspot-edge)
 *   EDGE_PORT         loopback port (default 8470)
 *   EDGE_SYNC_S       seconds between replica syncs while the link is up (default 60)
 *   EDGE_PROBE_S      seconds between probes of the region while it is cut (default 5)
 *   EDGE_FORWARD_TIMEOUT_MS  how long a forwarded call may take before the edge answers it from its replica (default 1000)
 *   EDGE_ANSWER_BUDGET_MS    how long a login the replica would refuse waits for the region (default 1700)
 *   EDGE_DOWN_AFTER   failed forwarded calls in a row that mark the link down (default 3)
 */
import './preamble.js';
import { readFileSync } from 'node:fs';
import { startEdge } from './service.js';

const fail = (line: string): never => {
  process.stderr.write(`edge: ${line} (see docs/outage.md)\n`);
  process.exit(64);
};
const need = (name: string): string => process.env[name] || fail(`${name} is not set`);
const number = (name: string, fallback: number, least = Number.MIN_VALUE) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value >= least ? value : fallback;
};
const tokenFile = need('EDGE_TOKEN_FILE');
let token = '';
try {
  token = readFileSync(tokenFile, 'utf8').trim();
} catch (error) {
  fail(`cannot read EDGE_TOKEN_FILE ${tokenFile}: ${(error as Error).message}`);
}
if (!token) fail(`EDGE_TOKEN_FILE ${tokenFile} is empty`);

const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const service = await startEdge({
  regionUrl: need('EDGE_REGION_URL'),
  token,
  localSecret: need('EDGE_LOCAL_SECRET'),
  dataDir: process.env.EDGE_DATA_DIR ?? '/var/lib/hotspot-edge',
  // 0: any free port (what the tests give).
  port: number('EDGE_PORT', 8470, 0),
  syncMs: number('EDGE_SYNC_S', 60) * 1000,
  probeMs: number('EDGE_PROBE_S', 5) * 1000,
  forwardTimeoutMs: number('EDGE_FORWARD_TIMEOUT_MS', 1000),
  answerBudgetMs: number('EDGE_ANSWER_BUDGET_MS', 1700),
  downAfter: number('EDGE_DOWN_AFTER', 3),
  say,
});
service.events.on('link', (state: string) =>
  say(`link ${state}; journal ${service.journal.size} entries (${service.journal.pendingBytes} bytes)`),
);
service.events.once('synced', (replica: { routers: unknown[]; codes: unknown[] }) =>
  say(`replica: ${replica.routers.length} routers, ${replica.codes.length} codes`),
);
service.events.on('replayed', (n: number) => say(`journal replayed: ${n} entries`));
service.events.on('revoked', () =>
  say('the region refused this edge token: replica wiped, nothing answered'),
);
service.events.on('error-answer', (error: unknown) =>
  say(`answer failed: ${(error as Error)?.message ?? error}`),
);
say(
  `edge listening on ${service.url}; link ${service.link()}; journal ${service.journal.size} entries (${service.journal.pendingBytes} bytes)`,
);
// A first replica at once (the link is up unless the journal still holds entries).
if (service.link() === 'up') void service.sync();
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void service.close().then(() => process.exit(0));
  });
