import { readFileSync } from 'node:fs';
import { type App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import type { HotspotStack } from '../../lib/hotspot-stack.js';
import { settingsFromContext } from '../../lib/settings.js';
import { inspect } from './template.js';

// A cell's own context, as cdk.json commits it (`cells.<id>`: region, availability zones, time
// zone): a synth with an account set and no credentials asks AWS nothing; the account's own
// alarms live in one cell; the front adopts the addresses a cell already holds; its certificate
// rolls in the cell's night.

const committed = (JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, unknown> })
  .context;

/** The held addresses a cell deployed again adopts (documentation ranges). */
const HELD = [
  { allocationId: 'eipalloc-0a1b2c3d4e5f60718', publicIp: '198.51.100.10' },
  { allocationId: 'eipalloc-0a1b2c3d4e5f60719', publicIp: '198.51.100.11' },
];
const HELD_EGRESS = [
  { allocationId: 'eipalloc-0b1b2c3d4e5f60718', publicIp: '198.51.100.20' },
  { allocationId: 'eipalloc-0b1b2c3d4e5f60719', publicIp: '198.51.100.21' },
];

/** The CLI's environment while synthesizing: an account, and its profile's region (not the cell's). */
const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
function cliEnvironment() {
  process.env.CDK_DEFAULT_ACCOUNT = '111122223333';
  process.env.CDK_DEFAULT_REGION = 'us-east-1';
}
afterAll(() => {
  for (const [key, value] of [
    ['CDK_DEFAULT_ACCOUNT', saved.account],
    ['CDK_DEFAULT_REGION', saved.region],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** Every template of the stack (the main one and each nested), merged: resources and outputs by id. */
function allOf(stack: Stack) {
  const stacks = [stack, ...stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)];
  const resources = Object.assign(
    {},
    ...stacks.map((s) => (Template.fromStack(s).toJSON() as { Resources: object }).Resources),
  );
  return inspect(Template.fromJSON({ Resources: resources }));
}

/** The alarms' names without the stack's prefix. */
const alarmNames = (t: ReturnType<typeof inspect>, prefix: string) =>
  t.ofType('AWS::CloudWatch::Alarm').map(([, a]) => String(a.Properties.AlarmName).replace(`${prefix}-`, ''));

const ACCOUNT_ALARMS = ['LambdaConcurrency', 'LambdaThrottlesAccount', 'SmsFailures', 'SmsSpend'];

describe('the committed cell ci, synthesized for an account with no credentials', () => {
  let app: App;
  let stack: HotspotStack;
  let t: ReturnType<typeof inspect>;
  beforeAll(() => {
    cliEnvironment();
    ({ app, stack } = buildApp({
      context: {
        ...committed,
        'aws:cdk:bundling-stacks': [],
        cell: 'ci',
        radiusAddresses: HELD,
        radiusEgressAddresses: HELD_EGRESS,
      },
    }));
    t = allOf(stack);
  }, 180_000);

  it("deploys to the cell's account and region, not the CLI profile's, and looks nothing up", () => {
    expect(stack.account).toBe('111122223333');
    expect(stack.region).toBe('eu-west-1');
    // No context the CLI would have to fetch from AWS (the availability zones are the cell's own).
    expect(app.synth().manifest.missing ?? []).toEqual([]);
    const zones = t.ofType('AWS::EC2::Subnet').map(([, s]) => s.Properties.AvailabilityZone);
    expect([...new Set(zones)].sort()).toEqual(['eu-west-1a', 'eu-west-1b']);
  });

  it("alarms on the account's own metrics, being the first of the cells", () => {
    expect(alarmNames(t, stack.stackName)).toEqual(expect.arrayContaining(ACCOUNT_ALARMS));
  });

  it('adopts the addresses it holds, by allocation id: the routers keep the addresses their scripts carry', () => {
    // No address of its own: the NLB and the NAT gateways take the held ones.
    expect(t.ofType('AWS::EC2::EIP')).toEqual([]);
    const [[, nlb] = []] = t.ofType('AWS::ElasticLoadBalancingV2::LoadBalancer');
    const mappings = nlb?.Properties.SubnetMappings as { AllocationId: string }[];
    expect(mappings.map((m) => m.AllocationId)).toEqual(HELD.map((a) => a.allocationId));
    expect(t.ofType('AWS::EC2::NatGateway').map(([, n]) => n.Properties.AllocationId)).toEqual(
      HELD_EGRESS.map((a) => a.allocationId),
    );
    // The routers' scripts get the same addresses; the output says what to keep for next time.
    const env = inspect(Template.fromStack(stack)).envOf('POST /api/v1/routers');
    expect(env.RADIUS_HOST).toBe(HELD.map((a) => a.publicIp).join(','));
    expect(env.RADIUS_DISCONNECT_FROM).toBe(HELD_EGRESS.map((a) => a.publicIp).join(','));
    const outputs = (Template.fromStack(stack).toJSON() as { Outputs: Record<string, { Value: unknown }> })
      .Outputs;
    expect(outputs.RadiusAddressAllocations?.Value).toBe(
      [...HELD, ...HELD_EGRESS].map((a) => a.allocationId).join(','),
    );
  });

  it("renews the front's certificate at 03:00 in Abidjan (UTC), rolling one task at a time", () => {
    const rules = t
      .ofType('AWS::Events::Rule')
      .filter(([, r]) => String(r.Properties.Description).includes("front's server certificate"));
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['cron(0 3 * * ? *)']);
  });
});

describe('a cell that does not own the account alarms', () => {
  it("alarms on its own metrics only; the cell named `accountAlarmsCell` alarms on the account's", () => {
    cliEnvironment();
    const { stack } = buildApp({
      context: { ...committed, 'aws:cdk:bundling-stacks': [], cell: 'ci', accountAlarmsCell: 'sn' },
    });
    const t = allOf(stack);
    const names = alarmNames(t, stack.stackName);
    for (const name of ACCOUNT_ALARMS) expect(names).not.toContain(name);
    expect(names).toEqual(expect.arrayContaining(['Api5xxRate', 'CountryLinkCut', 'FrontRefusingLogins']));
    // Its own addresses, made by the stack, when it holds none yet.
    expect(t.ofType('AWS::EC2::EIP')).toHaveLength(4);
  }, 180_000);

  it('is every cell but the first, unless another is named', () => {
    const of = (context: Record<string, unknown>) =>
      settingsFromContext((k) => ({ ...committed, ...context })[k]).accountAlarms;
    expect(['ci', 'sn', 'cm', 'bj-tg', 'ml-bf'].map((cell) => of({ cell }))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(['ci', 'sn', 'cm'].map((cell) => of({ cell, accountAlarmsCell: 'sn' }))).toEqual([
      false,
      true,
      false,
    ]);
    // A single deployment with no cells listed alarms on its account.
    expect(settingsFromContext(() => undefined).accountAlarms).toBe(true);
    expect(() => of({ cell: 'ci', accountAlarmsCell: 'xx' })).toThrow(/not one of the cells/);
    expect(() => of({ cell: 'gh' })).toThrow(/not one of the cells/);
  });
});

describe("a cell's night", () => {
  it('is 03:00 in its time zone, or its UTC offset; a zone with summer time is refused', () => {
    const minute = (context: Record<string, unknown>) =>
      settingsFromContext((k) => context[k]).maintenanceUtcMinute;
    expect(minute({ timeZone: 'Africa/Abidjan' })).toBe(3 * 60);
    expect(minute({ timeZone: 'Africa/Douala' })).toBe(2 * 60);
    expect(minute({ utcOffset: '+05:30' })).toBe(21 * 60 + 30);
    expect(minute({})).toBe(3 * 60);
    expect(minute({ timeZone: 'Africa/Bamako' })).toBe(3 * 60);
    expect(() => minute({ timeZone: 'Europe/Paris' })).toThrow(/changes its offset/);
  });

  it('refuses held addresses that are not one per zone, or not addresses', () => {
    const of = (context: Record<string, unknown>) => () =>
      settingsFromContext((k) => ({ availabilityZones: ['eu-west-1a', 'eu-west-1b'], ...context })[k]);
    expect(of({ radiusAddresses: [HELD[0]] })).toThrow(/one per availability zone/);
    expect(of({ radiusAddresses: [{ allocationId: 'eip-1', publicIp: '198.51.100.10' }, HELD[1]] })).toThrow(
      /eipalloc/,
    );
  });
});
