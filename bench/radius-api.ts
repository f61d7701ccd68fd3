/**
 * The RADIUS front's service (functions/front/service.ts: what FreeRADIUS calls) and the local
 * API (the operators' routes the bench calls, idle during the RADIUS rounds) in a process of
 * their own, for the RADIUS bench: its CPU time (/proc/<pid>/stat) is then theirs alone, not the
 * load generator's. It inherits the bench's environment (table,
 * endpoint, secrets), answers on a free port, and over IPC says where, and how many DynamoDB
 * commands it sent since the last reset and the write units DynamoDB Local reported for them. `--cpu-prof` on the bench's command line (BENCH_API_PROF=dir)
 * writes a V8 profile of it.
 */
import './preamble.js';
import { startServer } from '../bin/local/server.js';
import { startFrontService } from '../functions/front/service.js';
import { probeDdb } from '../test/support/ddb-instrument.js';

const server = await startServer({ port: 0 });
const front = await startFrontService({ port: 0 });
await front.routers.ready;
const probe = probeDdb();
process.on('message', (message: { kind: string }) => {
  if (message.kind === 'reset') probe.reset();
  if (message.kind === 'calls')
    process.send?.({
      kind: 'calls',
      calls: probe.calls.length,
      writeUnits: probe.consumed.reduce((n, c) => n + c.writeUnits, 0),
    });
  if (message.kind === 'stop') void Promise.all([server.close(), front.close()]).then(() => process.exit(0));
});
process.send?.({ kind: 'ready', url: front.url, apiUrl: server.url });
