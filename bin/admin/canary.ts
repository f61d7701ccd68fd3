// The operator CLI's `canary` commands: run the canary once, its status, its history.

import { logger } from '../../functions/core/log.js';
import { getSecret } from '../../functions/core/secrets.js';
import { configuredTargets, probe, runCanary } from '../../functions/monitoring/canary.js';
import { overallStatus } from '../../functions/monitoring/status.js';
import { getCanaryState, listRecentRuns, type StoredCheck } from '../../functions/store/canary.js';
import { UsageError } from './context.js';

const USAGE = 'canary run [--dry-run] [--verbose] | canary status | canary history [--limit n]';

/** The checks as a table, one line each. */
export function table(tests: readonly StoredCheck[]): string {
  const rows = tests.map((t) => [
    t.name,
    t.success ? 'ok' : 'FAIL',
    `${t.latency_ms} ms`,
    t.error ?? '',
    t.throughput_kbps !== undefined ? `${t.throughput_kbps} kbit/s` : (t.detail ?? ''),
  ]);
  const header = ['check', 'result', 'latency', 'reason', 'detail'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * `canary run`: one run now, recorded as a scheduled one would be (history, failure streak,
 * alert); `--dry-run` probes only. Prints the checks and exits 1 unless the run was healthy.
 * `canary status`: the latest recorded run. `canary history`: the latest runs.
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  // The table is the output; the run's JSON log lines are for CloudWatch (--verbose shows them).
  if (flags.verbose !== 'true') logger.setLogLevel('WARN');
  if (command === 'run') {
    if (flags['dry-run'] === 'true') {
      const tests = await probe(configuredTargets(), async () => ({
        sharedSecret: await getSecret('RADIUS_SECRET'),
        password: await getSecret('CANARY_PASSWORD'),
      }));
      const status = overallStatus(tests);
      process.stdout.write(`${table(tests)}\n\noverall_status: ${status} (dry run, not recorded)\n`);
      if (status !== 'healthy') process.exitCode = 1;
      return;
    }
    const { run: result, consecutive_fails, alert } = await runCanary();
    process.stdout.write(
      `${table(result.tests)}\n\noverall_status: ${result.overall_status}  consecutive_fails: ${consecutive_fails ?? '-'}\n`,
    );
    if (alert)
      process.stdout.write(`alert raised: ${alert.id} ${alert.type} ${alert.severity} site ${alert.site}\n`);
    if (result.overall_status !== 'healthy') process.exitCode = 1;
    return;
  }
  if (command === 'status') {
    const state = await getCanaryState();
    if (!state) {
      process.stdout.write('no canary run recorded yet\n');
      process.exitCode = 1;
      return;
    }
    process.stdout.write(
      `${table(state.tests)}\n\nlast_run: ${state.last_run}  overall_status: ${state.overall_status}  consecutive_fails: ${state.consecutive_fails}\n`,
    );
    return;
  }
  if (command === 'history') {
    const limit = Number(flags.limit ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new UsageError('--limit must be 1..1000');
    for (const r of await listRecentRuns(limit)) {
      const failing = r.tests.filter((t) => !t.success).map((t) => `${t.name}(${t.error})`);
      process.stdout.write(
        `${r.at}  ${r.overall_status.padEnd(8)}  ${failing.join(' ') || 'all checks passed'}\n`,
      );
    }
    return;
  }
  throw new UsageError(USAGE);
}
