/**
 * `npm run loadtest`: simulated routers of 20 resellers x 10 hotspots against the local stack
 * (DynamoDB Local on a free loopback port, the API in this process), for LOADTEST_SECONDS
 * (default 60) with LOADTEST_WORKERS (default 24) requests in flight. Prints the report of
 * bench/load-routers.ts; its last line names the hottest partition key and its share of writes.
 * Exits 1 when that share passes LOADTEST_MAX_SHARE % (default 2) or a transaction conflicted
 * on an item other transactions share (any key but a session's or its code's own).
 */
import './preamble.js';
import { runLoad, sharedConflicts } from './load-routers.js';
import { withLocalStack } from './stack.js';

const seconds = Number(process.env.LOADTEST_SECONDS ?? 60);
const workers = Number(process.env.LOADTEST_WORKERS ?? 24);
const maxShare = Number(process.env.LOADTEST_MAX_SHARE ?? 2) / 100;

async function main(): Promise<number> {
  return withLocalStack('loadtest', async ({ url }) => {
    const r = await runLoad({
      baseUrl: url,
      seconds,
      workers,
      resellers: 20,
      hotspots: 10,
      codesPerHotspot: 10,
    });
    for (const line of r.lines) console.log(line);
    const shared = sharedConflicts(r);
    if ((r.hottest?.share ?? 0) > maxShare || shared > 0 || r.failed > 0) {
      console.error(
        `loadtest: target missed (hottest over ${maxShare * 100} %, ${shared} conflicts on shared items, ${r.failed} failed requests)`,
      );
      return 1;
    }
    return 0;
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
