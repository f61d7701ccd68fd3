import { readFileSync } from 'node:fs';
import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLE } from '../../functions/store/table.js';
import { buildApp } from '../../lib/app.js';
import { inspect, type Resource } from './template.js';

// What operations read in docs/ kept equal to what a cell deploys: docs/monitoring.md's alarm
// table (a row for every alarm, what pages) and docs/scale.md's inputs of the bill (cells, the
// table's capacity, the backup rule, the front, the alarm count), with the bill's sums.

const committed = (JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, unknown> })
  .context;
const monitoring = readFileSync('docs/monitoring.md', 'utf8');
const scale = readFileSync('docs/scale.md', 'utf8');

let prefix = '';
let t: ReturnType<typeof inspect>;
beforeAll(() => {
  // The first cell of cdk.json (it alarms on the account's metrics), with its copies elsewhere.
  const { stack } = buildApp({
    context: {
      ...committed,
      'aws:cdk:bundling-stacks': [],
      cell: 'ci',
      backupCopyVaultArn: 'arn:aws:backup:eu-central-1:111122223333:backup-vault:hotspot-copies',
    },
  });
  prefix = `${stack.stackName}-`;
  const stacks = [stack, ...stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)];
  const resources = Object.assign(
    {},
    ...stacks.map(
      (s) => (Template.fromStack(s).toJSON() as { Resources: Record<string, Resource> }).Resources,
    ),
  );
  t = inspect(Template.fromJSON({ Resources: resources }));
}, 180_000);

/** The rows of the markdown table that follows `heading` (its header and rule left out). */
function tableAfter(doc: string, heading: string): string[][] {
  const start = doc.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const alarms = (): (Record<string, unknown> & { name: string })[] =>
  t
    .ofType('AWS::CloudWatch::Alarm')
    .map(([, a]) => ({ ...a.Properties, name: String(a.Properties.AlarmName).replace(prefix, '') }));

/** The alarm names of a row: `Name`, `Name<n>` (a number), `<consumer>Name` (a stream consumer's). */
const patternsOf = (cell: string) =>
  [...cell.matchAll(/`([^`]+)`/g)].map(
    (m) => new RegExp(`^${(m[1] as string).replace('<n>', '\\d+').replace('<consumer>', '[A-Z][A-Za-z]+')}$`),
  );

describe("docs/monitoring.md's alarm table", () => {
  it('has a row for every alarm a cell deploys, and no row without its alarm', () => {
    const rows = tableAfter(monitoring, '## Alarms: what pages');
    expect(rows.length).toBeGreaterThan(20);
    const deployed = alarms();
    for (const a of deployed) {
      const matching = rows.filter((r) => patternsOf(r[0] as string).some((p) => p.test(a.name)));
      expect(matching.length, a.name).toBe(1);
    }
    for (const r of rows)
      for (const p of patternsOf(r[0] as string))
        expect(
          deployed.some((a) => p.test(a.name)),
          `${p} has no alarm`,
        ).toBe(true);
  });

  it('says what pages as deployed: an alarm and an OK action, or none; no data a breach only where it says so', () => {
    const rows = tableAfter(monitoring, '## Alarms: what pages');
    for (const a of alarms()) {
      const row = rows.find((r) => patternsOf(r[0] as string).some((p) => p.test(a.name))) as string[];
      const pages = row[1] as string;
      if (pages.startsWith('yes')) {
        expect(a.AlarmActions, a.name).toHaveLength(1);
        expect(a.OKActions, a.name).toEqual(a.AlarmActions);
      } else {
        expect(pages).toMatch(/^no/);
        expect(a.AlarmActions, a.name).toBeUndefined();
      }
      expect(a.TreatMissingData === 'breaching', a.name).toBe(pages.includes('no data is a breach'));
    }
    // The account's own metrics: the rows that say so are the account's alarms.
    const account = rows
      .filter((r) => r[1]?.includes("in the account's cell"))
      .flatMap((r) => patternsOf(r[0] as string));
    expect(account.map(String).sort()).toEqual(
      ['/^LambdaConcurrency$/', '/^LambdaThrottlesAccount$/', '/^SmsFailures$/', '/^SmsSpend$/'].sort(),
    );
  });
});

describe("docs/scale.md's bill", () => {
  const inputs = () =>
    new Map(
      tableAfter(scale, '**What the stack deploys, per cell**').map((r) => [r[0] as string, r[1] as string]),
    );
  const number = (text: string | undefined, pattern: RegExp) => Number(pattern.exec(text ?? '')?.[1]);

  it('takes as many cells as cdk.json deploys', () => {
    expect(number(inputs().get('cells'), /^(\d+)$/)).toBe(Object.keys(committed.cells as object).length);
  });

  it("takes the table's capacity, its point-in-time recovery and its backup rule from the template", () => {
    const table = t.ofType('AWS::DynamoDB::Table')[0]?.[1].Properties as Record<string, unknown>;
    const policies = t
      .ofType('AWS::ApplicationAutoScaling::ScalingPolicy')
      .map(([, p]) => p.Properties.TargetTrackingScalingPolicyConfiguration as Record<string, unknown>)
      .filter((c) => /DynamoDB/.test(JSON.stringify(c.PredefinedMetricSpecification ?? '')));
    const capacity = inputs().get('table capacity');
    expect(table.BillingMode).toBe('PROVISIONED');
    expect(capacity).toMatch(/^provisioned/);
    expect(new Set(policies.map((c) => c.TargetValue))).toEqual(
      new Set([number(capacity, /(\d+) % utilization/)]),
    );
    expect(number(capacity, /(\d+) indexes/)).toBe(TABLE.indexes.length);
    expect(number(capacity, /(\d+) scaling policies/)).toBe(policies.length);
    expect(inputs().get('point-in-time recovery')).toMatch(/^on/);
    expect(table.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });

    const [[, plan] = []] = t.ofType('AWS::Backup::BackupPlan');
    if (!plan) throw new Error('no backup plan');
    const [rule] = (plan.Properties.BackupPlan as { BackupPlanRule: Record<string, unknown>[] })
      .BackupPlanRule;
    if (!rule) throw new Error('no backup rule');
    const backup = inputs().get('backup rule');
    expect(backup).toMatch(/^weekly \(Sundays at 02:00, UTC\)/);
    expect(rule.ScheduleExpression).toBe('cron(0 2 ? * SUN *)');
    expect((rule.Lifecycle as { DeleteAfterDays: number }).DeleteAfterDays).toBe(
      number(backup, /kept (\d+) days in/),
    );
    expect(
      (rule.CopyActions as { Lifecycle: { DeleteAfterDays: number } }[])[0]?.Lifecycle.DeleteAfterDays,
    ).toBe(number(backup, /region, kept (\d+) days/));
  });

  it("takes the front's tasks, the network, the secrets and the dashboards from the template", () => {
    const [[, target] = []] = t
      .ofType('AWS::ApplicationAutoScaling::ScalableTarget')
      .filter(([, s]) => s.Properties.ServiceNamespace === 'ecs');
    const task = t.ofType('AWS::ECS::TaskDefinition')[0]?.[1].Properties as Record<string, unknown>;
    const front = inputs().get('RADIUS front tasks');
    expect([target?.Properties.MinCapacity, target?.Properties.MaxCapacity]).toEqual([
      number(front, /^(\d+) to/),
      number(front, /to (\d+),/),
    ]);
    expect(Number(task.Cpu) / 1024).toBe(number(front, /([\d.]+) vCPU/));
    expect(Number(task.Memory) / 1024).toBe(number(front, /and (\d+) GB/));
    expect((task.RuntimePlatform as { CpuArchitecture: string }).CpuArchitecture).toBe('X86_64');
    expect(front).toMatch(/x86$/);
    expect(t.ofType('AWS::EC2::NatGateway')).toHaveLength(number(inputs().get('NAT gateways'), /^(\d+)$/));
    expect(t.ofType('AWS::EC2::EIP')).toHaveLength(number(inputs().get('public IPv4 addresses'), /^(\d+)$/));
    expect(t.ofType('AWS::ElasticLoadBalancingV2::LoadBalancer')).toHaveLength(
      number(inputs().get('load balancers'), /^(\d+)$/),
    );
    expect(t.ofType('AWS::SecretsManager::Secret')).toHaveLength(number(inputs().get('secrets'), /^(\d+)$/));
    expect(t.ofType('AWS::CloudWatch::Dashboard')).toHaveLength(
      number(inputs().get('dashboards'), /^(\d+)$/),
    );
  });

  it('counts the alarms and the alarm metrics CloudWatch bills, in the account cell and in the others', () => {
    // A metric-math alarm is billed per metric it reads; an anomaly-detection one as three.
    const metricsOf = (a: Record<string, unknown>) => {
      const queries = a.Metrics as { MetricStat?: unknown; Expression?: string }[] | undefined;
      if (!queries) return 1;
      if (queries.some((q) => q.Expression?.startsWith('ANOMALY_DETECTION_BAND'))) return 3;
      return queries.filter((q) => q.MetricStat).length;
    };
    const all = alarms();
    const account = all.filter((a) =>
      ['LambdaConcurrency', 'LambdaThrottlesAccount', 'SmsFailures', 'SmsSpend'].includes(a.name),
    );
    const text = inputs().get('alarms');
    const [count, others, metricCount, otherMetrics] =
      /^(\d+) \((\d+) in a cell not alarming on the account's metrics\), (\d+) alarm metrics \((\d+)\)$/
        .exec(text ?? '')
        ?.slice(1)
        .map(Number) ?? [];
    expect(all).toHaveLength(count as number);
    expect(all.length - account.length).toBe(others);
    const total = all.reduce((n, a) => n + metricsOf(a), 0);
    expect(total).toBe(metricCount);
    expect(total - account.reduce((n, a) => n + metricsOf(a), 0)).toBe(otherMetrics);
    // Auto scaling's own alarms: 4 for each DynamoDB policy, 2 of 2 metrics for the front's.
    const policies = t.ofType('AWS::ApplicationAutoScaling::ScalingPolicy');
    const prose = scale.replace(/\s+/g, ' ');
    expect(prose).toContain(
      `4 for each of DynamoDB's ${policies.length - 1} policies (${4 * (policies.length - 1)})`,
    );
    expect(prose).toContain(`${4 * (policies.length - 1) + 4} alarm metrics a cell`);
  });

  it('adds up, before and after, and the after is at most $4,000 a month', () => {
    const rows = tableAfter(scale, '**The bill, before and after**');
    const money = (cell: string | undefined) => Number((cell ?? '').replace(/[*,]/g, ''));
    const totalRow = rows.find((r) => r[0] === '**infrastructure**') as string[];
    const lines = rows.slice(0, rows.indexOf(totalRow));
    expect(lines.length).toBeGreaterThan(15);
    for (const column of [2, 4]) {
      const sum = lines.reduce((n, r) => n + money(r[column]), 0);
      // Each line is rounded to the dollar: the total is within a dollar a line of their sum.
      expect(Math.abs(sum - money(totalRow[column]))).toBeLessThanOrEqual(lines.length / 2);
    }
    expect(money(totalRow[4])).toBeLessThanOrEqual(4000);
  });
});
