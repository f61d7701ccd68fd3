// The in-country edge's service as its own process: settings read, the service started, stopped on a signal.

/**
 * The in-country edge's service (docs/outage.md): `node edge.mjs` (built by `npm run edge:build`,
 * installed by deploy/edge/install.sh) or `tsx functions/edge-service/main.ts` from a checkout. Every setting comes
 * from the environment (the installer writes /etc/hotspot-edge/edge.env, mode 600):
 *
 *   EDGE_REGION_URL   the region's API (https://api.example.com)
 *   EDGE_TOKEN        this edge's token (`npm run admin -- edges add`)
 *   EDGE_LOCAL_SECRET the bearer its FreeRADIUS sends (its RADIUS_API_SECRET), on loopback only
 *   EDGE_DATA_DIR     the replica and the journal (default /var/lib/hotspot-edge)
 *   EDGE_PORT         loopback port (default 8470)
 *   EDGE_SYNC_S       seconds between replica syncs while the link is up (default 60)
 *   EDGE_PROBE_S      seconds between probes of the region while it is cut (default 5)
 *   EDGE_FORWARD_TIMEOUT_MS  how long a forwarded call may take before the edge decides (default 1000)
 */
import './preamble.js';
import { startEdge } from './service.js';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`edge: ${name} is not set (see docs/outage.md)\n`);
    process.exit(64);
  }
  return value;
};
const number = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const service = await startEdge({
  regionUrl: need('EDGE_REGION_URL'),
  token: need('EDGE_TOKEN'),
  localSecret: need('EDGE_LOCAL_SECRET'),
  dataDir: process.env.EDGE_DATA_DIR ?? '/var/lib/hotspot-edge',
  port: number('EDGE_PORT', 8470),
  syncMs: number('EDGE_SYNC_S', 60) * 1000,
  probeMs: number('EDGE_PROBE_S', 5) * 1000,
  forwardTimeoutMs: number('EDGE_FORWARD_TIMEOUT_MS', 1000),
});
const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
service.events.on('link', (state: string) => say(`link ${state}; journal ${service.journal.size} entries`));
service.events.on('replayed', (n: number) => say(`journal replayed: ${n} entries`));
service.events.on('revoked', () =>
  say('the region refused this edge token: replica wiped, nothing answered'),
);
say(`edge listening on ${service.url}; link ${service.link()}`);
// A first replica at once (the link is up unless the journal still holds entries).
void service.sync();
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void service.close().then(() => process.exit(0));
  });
