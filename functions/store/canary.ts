// The canary's runs: the latest, the recent ones and each day's counts.

import { absentOrBelow, entity } from './entity.js';

/** One check of a stored run, as the canary measured it. */
export interface StoredCheck {
  name: string;
  success: boolean;
  latency_ms: number;
  error?: string;
  detail?: string;
  throughput_kbps?: number;
}

export type RunStatus = 'healthy' | 'degraded' | 'down';

export interface CanaryRun {
  id: string;
  /** Start of the run (ISO). */
  at: string;
  overall_status: RunStatus;
  tests: StoredCheck[];
  /** The hotspot the canary stands for (its NAS id): the platform's own, no customer's. */
  site?: string;
}

/** The latest run and the failure streak: what `GET /canary/status` answers. */
export interface CanaryState {
  last_run: string;
  run_id: string;
  overall_status: RunStatus;
  tests: StoredCheck[];
  consecutive_fails: number;
  site?: string;
}

export interface DayCounters {
  day: string;
  runs: number;
  healthy_runs: number;
  /** Runs that were not `down` (subscribers could get online). */
  up_runs: number;
}

/** Run history is kept this long (issue: 90 days); day counters a little longer. */
export const HISTORY_DAYS = 90;
const DAY_S = 86_400;

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The run history: one partition, in start order. */
const Run = entity<CanaryRun>('canary_run')({
  key: (r: Pick<CanaryRun, 'at' | 'id'>) => ({ pk: 'CANARY#RUN', sk: `${r.at}#${r.id}` }),
  ttl: (r) => epochSeconds(r.at) + HISTORY_DAYS * DAY_S,
});

/** The runs of each UTC day (YYYY-MM-DD), counted: one partition, in day order. */
const Day = entity<DayCounters>('canary_day')({
  key: (d: Pick<DayCounters, 'day'>) => ({ pk: 'CANARY#DAY', sk: d.day }),
  // A little longer than the run history they count.
  ttl: (d) => epochSeconds(`${d.day}T00:00:00.000Z`) + (HISTORY_DAYS + 10) * DAY_S,
});

/** The last day a day key can name: the upper bound of "every day from a day on". */
const LAST_DAY = '9999-12-31';

const State = entity<CanaryState>('canary_state')({
  key: (_only: unknown) => ({ pk: 'CANARY', sk: 'STATE' }),
});

// Access: PutItem pk=CANARY#RUN, sk=<at>#<run id>; TTL 90 days (history, newest last).
export async function putRun(run: CanaryRun): Promise<void> {
  await Run.put(run);
}

/** Counts a run in its day's counters: what uptime and SLA are computed from. */
// Access: UpdateItem pk=CANARY#DAY, sk=<YYYY-MM-DD>, ADD runs, healthy_runs, up_runs (atomic counters).
export async function countRunInDay(run: CanaryRun): Promise<void> {
  const day = run.at.slice(0, 10);
  await Day.upsert(
    { day },
    {
      set: { day },
      add: {
        runs: 1,
        healthy_runs: run.overall_status === 'healthy' ? 1 : 0,
        up_runs: run.overall_status === 'down' ? 0 : 1,
      },
    },
  );
}

/**
 * Makes a run the latest one and moves the failure streak: +1 (atomic ADD) for a failed run,
 * back to 0 for a healthy one. A run that finishes after a newer one was recorded changes
 * nothing here (undefined): the state always describes the newest run.
 */
// Access: UpdateItem pk=CANARY, sk=STATE with attribute_not_exists(last_run) OR last_run < :at; ADD consecutive_fails.
export const recordLatest = (run: CanaryRun, failed: boolean): Promise<CanaryState | undefined> =>
  State.upsertReturning(
    {},
    {
      set: {
        last_run: run.at,
        run_id: run.id,
        overall_status: run.overall_status,
        tests: run.tests,
        ...(run.site ? { site: run.site } : {}),
        // A failed run adds one to the streak; a healthy one sets it back to none.
        ...(failed ? {} : { consecutive_fails: 0 }),
      },
      ...(failed ? { add: { consecutive_fails: 1 } } : {}),
    },
    absentOrBelow('last_run', run.at),
  );

// Access: GetItem pk=CANARY, sk=STATE.
export const getCanaryState = (): Promise<CanaryState | undefined> => State.get({});

/** The day counters from `fromDay` (YYYY-MM-DD) on: at most ~30 small items for the overview. */
// Access: Query pk=CANARY#DAY AND sk BETWEEN :fromDay AND 9999-12-31.
export const listDays = (fromDay: string): Promise<DayCounters[]> =>
  Day.queryAll({ pk: Day.key({ day: fromDay }).pk, sk: { between: [fromDay, LAST_DAY] } });

/** The latest runs, newest first (operator CLI). */
// Access: Query pk=CANARY#RUN, ScanIndexForward=false, Limit.
export async function listRecentRuns(limit: number): Promise<CanaryRun[]> {
  const page = await Run.query({ pk: Run.key({ at: '', id: '' }).pk, forward: false, limit });
  return page.items;
}
