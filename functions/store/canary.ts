import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { isConditionFailure } from './table.js';

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
}

/** The latest run and the failure streak: what `GET /canary/status` answers. */
export interface CanaryState {
  last_run: string;
  run_id: string;
  overall_status: RunStatus;
  tests: StoredCheck[];
  consecutive_fails: number;
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

const keys = {
  state: () => ({ pk: 'CANARY', sk: 'STATE' }),
  run: (at: string, id: string) => ({ pk: 'CANARY#RUN', sk: `${at}#${id}` }),
  day: (day: string) => ({ pk: 'CANARY#DAY', sk: day }),
  days: () => ({ pk: 'CANARY#DAY' }),
  runs: () => ({ pk: 'CANARY#RUN' }),
};

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

// Access: PutItem pk=CANARY#RUN, sk=<at>#<run id>; TTL 90 days (history, newest last).
export async function putRun(run: CanaryRun): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.run(run.at, run.id),
        entity: 'canary_run',
        ...run,
        ttl: epochSeconds(run.at) + HISTORY_DAYS * DAY_S,
      },
    }),
  );
}

/** Counts a run in its day's counters: what uptime and SLA are computed from. */
// Access: UpdateItem pk=CANARY#DAY, sk=<YYYY-MM-DD>, ADD runs, healthy_runs, up_runs (atomic counters).
export async function countRunInDay(run: CanaryRun): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.day(run.at.slice(0, 10)),
      UpdateExpression: 'ADD runs :one, healthy_runs :healthy, up_runs :up SET entity = :entity, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':healthy': run.overall_status === 'healthy' ? 1 : 0,
        ':up': run.overall_status === 'down' ? 0 : 1,
        ':entity': 'canary_day',
        ':ttl': epochSeconds(run.at) + (HISTORY_DAYS + 10) * DAY_S,
      },
    }),
  );
}

/**
 * Makes a run the latest one and moves the failure streak: +1 (atomic ADD) for a failed run,
 * back to 0 for a healthy one. A run that finishes after a newer one was recorded changes
 * nothing here (undefined): the state always describes the newest run.
 */
// Access: UpdateItem pk=CANARY, sk=STATE with attribute_not_exists(last_run) OR last_run < :at; ADD consecutive_fails.
export async function recordLatest(run: CanaryRun, failed: boolean): Promise<CanaryState | undefined> {
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.state(),
        UpdateExpression: `SET last_run = :at, run_id = :id, overall_status = :status, tests = :tests, entity = :entity ${
          failed ? 'ADD consecutive_fails :one' : ', consecutive_fails = :zero'
        }`,
        ConditionExpression: 'attribute_not_exists(last_run) OR last_run < :at',
        ExpressionAttributeValues: {
          ':at': run.at,
          ':id': run.id,
          ':status': run.overall_status,
          ':tests': run.tests,
          ':entity': 'canary_state',
          ...(failed ? { ':one': 1 } : { ':zero': 0 }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromState(out.Attributes ?? {});
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

function fromState(item: Record<string, unknown>): CanaryState {
  return {
    last_run: item.last_run as string,
    run_id: item.run_id as string,
    overall_status: item.overall_status as RunStatus,
    tests: (item.tests as StoredCheck[] | undefined) ?? [],
    consecutive_fails: (item.consecutive_fails as number | undefined) ?? 0,
  };
}

// Access: GetItem pk=CANARY, sk=STATE.
export async function getCanaryState(): Promise<CanaryState | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: keys.state() }));
  return out.Item ? fromState(out.Item) : undefined;
}

/** The day counters from `fromDay` (YYYY-MM-DD) on: at most ~30 small items for the overview. */
// Access: Query pk=CANARY#DAY AND sk >= :fromDay.
export async function listDays(fromDay: string): Promise<DayCounters[]> {
  const days: DayCounters[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': keys.days().pk, ':from': fromDay },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      days.push({
        day: item.sk as string,
        runs: (item.runs as number | undefined) ?? 0,
        healthy_runs: (item.healthy_runs as number | undefined) ?? 0,
        up_runs: (item.up_runs as number | undefined) ?? 0,
      });
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return days;
}

/** The latest runs, newest first (operator CLI). */
// Access: Query pk=CANARY#RUN, ScanIndexForward=false, Limit.
export async function listRecentRuns(limit: number): Promise<CanaryRun[]> {
  const out = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.runs().pk },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => ({
    id: item.id as string,
    at: item.at as string,
    overall_status: item.overall_status as RunStatus,
    tests: (item.tests as StoredCheck[] | undefined) ?? [],
  }));
}
