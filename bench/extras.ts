import { randomUUID } from 'node:crypto';
import { localClient } from '../bin/local/dynamodb-local.js';
import { createTable } from '../bin/local/table.js';
import { resetConfig } from '../functions/core/config.js';
import { allocateVlan } from '../functions/network/vlans.js';
import type { DdbProbe } from '../test/support/ddb-instrument.js';
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
  await createTable(client, name);
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
          '(one read and one transaction per attempt; the rest are lost races on the counter, retried).',
      ],
    };
  });
}

/** Figures specific to an area. */
export async function extraFigures(_ctx: BenchContext, probe: DdbProbe): Promise<ExtraFigure[]> {
  return [await vlanAllocations(probe)];
}
