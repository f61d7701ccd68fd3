import { App, NestedStack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_SECRETS } from '../../functions/billing/gateways/registry.js';
import { billingSettings } from '../../functions/billing/settings.js';
import { worstCallMs } from '../../functions/core/config.js';
import { GENERATED_SECRETS, type SecretName } from '../../functions/core/secrets.js';
import { jobs } from '../../functions/jobs.js';
import { radiusSettings } from '../../functions/radius/settings.js';
import {
  routes as allRoutes,
  type Route,
  type RouteAccess,
  routeKey,
  routeSecrets,
} from '../../functions/routes.js';
import { TABLE } from '../../functions/store/table.js';
import { streamConsumers } from '../../functions/streams.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';

import { ALL_SECRETS } from '../../lib/secret-names.js';
import { actionsOf, apiTemplate, inspect } from './template.js';

/** The secrets a function is given: its own, and every gateway's when it handles payments. */
const withPaymentSecrets = (access: RouteAccess, secrets: readonly SecretName[]) => [
  ...new Set([...secrets, ...(access.payments ? PAYMENT_SECRETS : [])]),
];
const secretsOf = (r: Route) => withPaymentSecrets(r.access, routeSecrets(r));

/** Generic over the route table: rows added by any area are covered without touching this file. */

const CONTEXT = {
  // Bundling is skipped: these assertions are about resources, not bundles (`npx cdk synth` bundles).
  'aws:cdk:bundling-stacks': [],
  stage: 'test',
  throttleRate: 20,
  throttleBurst: 40,
  smsSpendAlarmUsd: 25,
  providerFeeRate: 0.05,
  vlanFirstId: 100,
  opsEmails: ['ops@example.com'],
};

let template: Template;
let t: ReturnType<typeof inspect>;

/**
 * The stack of CONTEXT, synthesized once for the whole file: the jobs' and the stream consumers'
 * blocks read the same one (a synth takes seconds).
 */
let synthesized: { stack: HotspotStack; template: Template } | undefined;
function synthesize(): { stack: HotspotStack; template: Template } {
  if (!synthesized) {
    const app = new App({ context: CONTEXT });
    const stack = new HotspotStack(
      app,
      'Test',
      settingsFromContext((k) => app.node.tryGetContext(k)),
    );
    // The API's areas in nested stacks of their own are merged in: the whole API.
    synthesized = { stack, template: apiTemplate(stack) };
  }
  return synthesized;
}

beforeAll(() => {
  template = synthesize().template;
  t = inspect(template);
});

/** The rows with a function of their own: all but the RADIUS data plane's (the front's service runs those). */
const routes = allRoutes.filter((r) => r.plane !== 'front');
const apiRows = () => routes.filter((r) => r.expose !== 'function-url');
const urlRows = () => routes.filter((r) => r.expose === 'function-url');
const ref = (id: string) => ({ Ref: id });
const tableId = () => {
  const [table] = t.ofType('AWS::DynamoDB::Table');
  if (!table) throw new Error('no table');
  return table[0];
};
const secretId = (name: SecretName) => {
  const found = t
    .ofType('AWS::SecretsManager::Secret')
    .find(([, s]) => String(s.Properties.Description).startsWith(`${name}:`));
  if (!found) throw new Error(`no secret ${name}`);
  return found[0];
};
const topicId = () => {
  const [topic] = t.ofType('AWS::SNS::Topic');
  if (!topic) throw new Error('no topic');
  return topic[0];
};

describe('one function per route-table row', () => {
  it('creates one Node.js 22 arm64 function per row, per scheduled job, per stream consumer, plus the canary and the router keys, and no other function', () => {
    const all = t.ofType('AWS::Lambda::Function');
    const node22 = all.filter(
      ([, f]) => f.Properties.Runtime === 'nodejs22.x' && f.Properties.Handler === 'index.handler',
    );
    expect(node22).toHaveLength(routes.length + jobs.length + streamConsumers.length + 2);
    expect(all).toHaveLength(node22.length);
    for (const [, fn] of all) expect(fn.Properties.Architectures).toEqual(['arm64']);
  });

  it('gives each row exactly one function, of 256 MB and 10 s', () => {
    for (const r of routes) {
      const fn = t.functionOf(routeKey(r));
      expect(fn.Properties.MemorySize, routeKey(r)).toBe(256);
      expect(fn.Properties.Timeout, routeKey(r)).toBe(10);
    }
  });

  it("logs each function to its access profile's log group kept one month, which its role alone of the API's may write", () => {
    const groupOf = (key: string) =>
      (t.functionOf(key).Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    const roleOf = (key: string) =>
      (t.functionOf(key).Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    for (const r of routes) {
      const group = groupOf(routeKey(r));
      expect(t.resources[group]?.Properties.RetentionInDays, routeKey(r)).toBe(30);
      // Same group, same role: a function never shares a log group with another profile's.
      for (const other of routes)
        if (groupOf(routeKey(other)) === group) expect(roleOf(routeKey(other))).toBe(roleOf(routeKey(r)));
    }
  });
});

describe('the HTTP API', () => {
  it('has exactly one route per API row, with its method and path', () => {
    const keys = t.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect([...keys].sort()).toEqual(apiRows().map(routeKey).sort());
  });

  it("deploys the edge's routes in a nested stack of their own, which the stage's throttles wait for", () => {
    const { stack } = synthesize();
    const main = inspect(Template.fromStack(stack));
    const nested = main.ofType('AWS::CloudFormation::Stack').map(([id]) => id);
    const edge = nested.find((id) => id.startsWith('EdgeApi'));
    expect(edge).toBeDefined();
    const edgeKeys = allRoutes.filter((r) => r.path.startsWith('/api/v1/edge/')).map(routeKey);
    expect(edgeKeys).toHaveLength(5);
    // Not in the main stack's own resources, but in the API (the merged template, `t`).
    for (const key of edgeKeys) {
      expect(() => main.functionOf(key), key).toThrow();
      expect(() => t.functionOf(key), key).not.toThrow();
    }
    const [[, stage] = []] = main.ofType('AWS::ApiGatewayV2::Stage') as [string, { DependsOn?: string[] }][];
    expect(stage?.DependsOn).toContain(edge);
  });

  it("has no route and no function for the RADIUS data plane's rows (the front's service serves them)", () => {
    const front = allRoutes.filter((r) => r.plane === 'front').map(routeKey);
    expect(front).toEqual(
      expect.arrayContaining(['POST /api/v1/radius/authorize', 'POST /api/v1/radius/client']),
    );
    const keys = t.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => String(r.Properties.RouteKey));
    // An edge's forwarded calls are public routes of their own (`/api/v1/edge/radius/...`).
    expect(keys.filter((k) => k.includes('/api/v1/radius/'))).toEqual([]);
    for (const key of front) expect(() => t.functionOf(key), key).toThrow();
  });

  it("sends each route to its own row's function", () => {
    for (const [, route] of t.ofType('AWS::ApiGatewayV2::Route')) {
      const target = JSON.stringify(route.Properties.Target);
      const [integrationId] = /integrations\/"?,?\{"Ref":"([^"]+)"/.exec(target)?.slice(1) ?? [];
      const integration = t.resources[integrationId as string];
      expect(integration?.Properties.IntegrationUri).toEqual({
        'Fn::GetAtt': [t.functionIdOf(String(route.Properties.RouteKey)), 'Arn'],
      });
      expect(integration?.Properties.PayloadFormatVersion).toBe('2.0');
    }
  });

  it('throttles the default stage with the context rates and writes JSON access logs to a kept log group', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('ApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
    const [[, logs] = []] = t.ofType('AWS::Logs::LogGroup').filter(([id]) => id.startsWith('ApiAccessLogs'));
    expect(logs?.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('gives function-url rows a public function URL and no API route', () => {
    expect(t.ofType('AWS::Lambda::Url')).toHaveLength(urlRows().length);
    for (const r of urlRows()) {
      template.hasResourceProperties('AWS::Lambda::Url', {
        AuthType: 'NONE',
        TargetFunctionArn: { 'Fn::GetAtt': [t.functionIdOf(routeKey(r)), 'Arn'] },
      });
    }
  });
});

describe('the environment of each function', () => {
  it('carries the stage, SNS for SMS, the real aggregator and the settings given in context', () => {
    for (const r of routes) {
      expect(t.envOf(routeKey(r)), routeKey(r)).toMatchObject({
        STAGE: 'test',
        SMS_MODE: 'sns',
        AGGREGATOR_MODE: 'http',
        PROVIDER_FEE_RATE: '0.05',
        VLAN_FIRST_ID: '100',
      });
    }
  });

  it('names the table only to rows with table access', () => {
    for (const r of routes) {
      const name = t.envOf(routeKey(r)).TABLE_NAME;
      if (r.access.table === 'none') expect(name, routeKey(r)).toBeUndefined();
      else expect(name, routeKey(r)).toEqual(ref(tableId()));
    }
  });

  it('names exactly the secrets of its row, each by its ARN', () => {
    for (const r of routes) {
      const env = t.envOf(routeKey(r));
      const named = Object.keys(env).filter((k) => k.endsWith('_ARN') && k !== 'OPS_TOPIC_ARN');
      expect(named.sort(), routeKey(r)).toEqual(
        secretsOf(r)
          .map((s) => `${s}_ARN`)
          .sort(),
      );
      for (const s of secretsOf(r)) expect(env[`${s}_ARN`], routeKey(r)).toEqual(ref(secretId(s)));
    }
  });
});

/** The arm64 layer of the Parameters and Secrets extension, as deployed in eu-west-1. */
const EXTENSION_LAYER =
  /^arn:aws:lambda:eu-west-1:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/;

describe('the secrets extension', () => {
  const secretRows = () => routes.filter((r) => secretsOf(r).length > 0);
  const plainRows = () => routes.filter((r) => secretsOf(r).length === 0);

  it('is the one layer of every function that names a secret, its cache on and its port in the environment', () => {
    expect(secretRows().length).toBeGreaterThan(0);
    for (const r of secretRows()) {
      const key = routeKey(r);
      expect(t.layersOfFunction(t.functionIdOf(key), 'eu-west-1'), key).toEqual([
        expect.stringMatching(EXTENSION_LAYER),
      ]);
      expect(t.envOf(key), key).toMatchObject({
        PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'true',
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
        PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
        SECRETS_MANAGER_TTL: '300',
      });
    }
  });

  it('is no layer of a function that names no secret, nor configured in its environment', () => {
    expect(plainRows().length).toBeGreaterThan(0);
    for (const r of plainRows()) {
      const key = routeKey(r);
      expect(t.functionOf(key).Properties.Layers, key).toBeUndefined();
      expect(
        Object.keys(t.envOf(key)).filter((k) => k.startsWith('PARAMETERS_SECRETS_')),
        key,
      ).toEqual([]);
    }
  });

  it('is a layer of exactly the rows, scheduled jobs, canary and router keys that read a secret', () => {
    const withLayer = t
      .ofType('AWS::Lambda::Function')
      .filter(([, f]) => f.Properties.Layers !== undefined)
      .map(([id]) => id);
    const readers = [
      ...secretRows().map((r) => t.functionIdOf(routeKey(r))),
      ...jobs
        .filter((j) => withPaymentSecrets(j.access, j.access.secrets ?? []).length > 0)
        .map((j) => t.functionIdOf(j.name)),
      t.functionIdOf('Canary'),
      t.functionIdOf('RouterKeys'),
    ];
    expect(jobs.some((j) => !j.access.secrets?.length)).toBe(true);
    expect(withLayer.sort()).toEqual(readers.sort());
    for (const id of readers)
      expect(t.layersOfFunction(id, 'eu-west-1'), id).toEqual([expect.stringMatching(EXTENSION_LAYER)]);
  });
});

describe('the table', () => {
  it("projects on the voucher lists' index nothing that a login after the first or an accounting report changes", () => {
    for (const name of ['gsi5', 'gsi6'])
      for (const changing of [
        'devices',
        'grants',
        'devices_version',
        'used_bytes',
        'last_login_at',
        'last_nas_id',
      ])
        expect(
          (TABLE.indexes.find((i) => i.name === name) as { nonKeyAttributes: readonly string[] })
            .nonKeyAttributes,
        ).not.toContain(changing);
  });

  it('is provisioned (auto scaled from its floors), with TTL, PITR, six GSIs (the open sessions by NAS, the voucher lists and the replica narrow), deletion protection, and retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 50 },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          }),
          Match.objectLike({
            IndexName: 'gsi2',
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          }),
          Match.objectLike({
            IndexName: 'gsi3',
            KeySchema: [
              { AttributeName: 'gsi3pk', KeyType: 'HASH' },
              { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          }),
          Match.objectLike({
            IndexName: 'gsi4',
            KeySchema: [
              { AttributeName: 'gsi4pk', KeyType: 'HASH' },
              { AttributeName: 'gsi4sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'code', 'device'] },
          }),
          Match.objectLike({
            IndexName: 'gsi5',
            KeySchema: [
              { AttributeName: 'gsi5pk', KeyType: 'HASH' },
              { AttributeName: 'gsi5sk', KeyType: 'RANGE' },
            ],
            // What a voucher list shows; not the devices or bytes a login or a report changes.
            Projection: Match.objectLike({
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: Match.arrayWith(['code', 'voucher_status', 'expires_at', 'revoked_at']),
            }),
          }),
          Match.objectLike({
            IndexName: 'gsi6',
            KeySchema: [
              { AttributeName: 'gsi6pk', KeyType: 'HASH' },
              { AttributeName: 'gsi6sk', KeyType: 'RANGE' },
            ],
            // What an edge decides a login on; its used bytes only as copied by tenths.
            Projection: Match.objectLike({
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: Match.arrayWith(['code', 'offer', 'expires_at', 'replica_bytes']),
            }),
          }),
        ],
      }),
    });
  });

  it("scales the table's and each index's read and write capacity on their utilization, 70 %, between a floor and a ceiling", () => {
    const { stack } = synthesize();
    const nested = stack.node.findAll().find((c) => c instanceof NestedStack && c.node.id === 'Capacity');
    if (!nested) throw new Error('no capacity stack');
    const capacity = inspect(Template.fromStack(nested as NestedStack));
    const targets = capacity
      .ofType('AWS::ApplicationAutoScaling::ScalableTarget')
      .map(([, s]) => s.Properties);
    // The table and each index, reads and writes: every capacity the table is billed for.
    expect(targets).toHaveLength(2 * (1 + TABLE.indexes.length));
    const dims = targets.map((s) => `${s.ScalableDimension}`).sort();
    expect(new Set(dims)).toEqual(
      new Set([
        'dynamodb:table:ReadCapacityUnits',
        'dynamodb:table:WriteCapacityUnits',
        'dynamodb:index:ReadCapacityUnits',
        'dynamodb:index:WriteCapacityUnits',
      ]),
    );
    for (const s of targets) expect(Number(s.MaxCapacity)).toBeGreaterThan(Number(s.MinCapacity));
    const policies = capacity
      .ofType('AWS::ApplicationAutoScaling::ScalingPolicy')
      .map(([, p]) => p.Properties);
    expect(policies).toHaveLength(targets.length);
    for (const p of policies)
      expect(p.TargetTrackingScalingPolicyConfiguration).toMatchObject({
        TargetValue: 70,
        PredefinedMetricSpecification: {
          PredefinedMetricType: expect.stringMatching(/^DynamoDB(Read|Write)CapacityUtilization$/),
        },
      });
  });

  it('keeps the logical ids of the retained table and secrets (a new id would orphan them)', () => {
    expect(tableId()).toBe('TableCD117FA1');
    expect(secretId('JWT_SECRET')).toBe('SecretJWTSECRET1D08427D');
    for (const [, s] of t.ofType('AWS::SecretsManager::Secret')) expect(s.DeletionPolicy).toBe('Retain');
  });
});

describe('least privilege, derived from the route table', () => {
  it('never grants a wildcard action (*, dynamodb:*, sns:*...)', () => {
    for (const [id, policy] of t.ofType('AWS::IAM::Policy')) {
      for (const s of (policy.Properties.PolicyDocument as { Statement: never[] }).Statement) {
        for (const action of actionsOf(s)) expect(action, id).not.toMatch(/(^|:)\*$/);
      }
    }
  });

  it('gives read-only rows no write action on the table', () => {
    for (const r of routes.filter((x) => x.access.table === 'read')) {
      const actions = t.statementsOf(routeKey(r)).flatMap(actionsOf);
      expect(actions, routeKey(r)).toContain('dynamodb:Query');
      for (const write of [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ]) {
        expect(actions, routeKey(r)).not.toContain(write);
      }
    }
  });

  it('gives write rows the item writes, and rows without table access no DynamoDB action', () => {
    for (const r of routes) {
      const dynamo = t
        .statementsOf(routeKey(r))
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('dynamodb:'));
      if (r.access.table === 'none') expect(dynamo, routeKey(r)).toEqual([]);
      if (r.access.table === 'write') expect(dynamo, routeKey(r)).toContain('dynamodb:PutItem');
    }
  });

  it('lets each function read exactly the secrets of its row', () => {
    for (const r of routes) {
      const read = t
        .statementsOf(routeKey(r))
        .filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'))
        .map((s) => s.Resource);
      expect(read, routeKey(r)).toEqual(
        expect.arrayContaining(secretsOf(r).map((name) => ref(secretId(name)))),
      );
      expect(read, routeKey(r)).toHaveLength(secretsOf(r).length);
    }
  });

  it('lets only the sms row publish to phones, in its region, and never to a topic but the ops one', () => {
    for (const r of routes) {
      const publish = t.statementsOf(routeKey(r)).filter((s) => actionsOf(s).includes('sns:Publish'));
      const allowed = publish.filter((s) => s.Effect === 'Allow');
      if (r.access.sns === 'sms') {
        expect(allowed, routeKey(r)).toEqual([
          expect.objectContaining({
            Resource: '*',
            Condition: { StringEquals: { 'aws:RequestedRegion': ref('AWS::Region') } },
          }),
        ]);
        expect(publish, routeKey(r)).toContainEqual(
          expect.objectContaining({ Effect: 'Deny', Resource: 'arn:aws:sns:*:*:*' }),
        );
      } else if (r.access.sns === 'ops') {
        expect(allowed, routeKey(r)).toEqual([expect.objectContaining({ Resource: ref(topicId()) })]);
      } else {
        expect(publish, routeKey(r)).toEqual([]);
      }
    }
    // Whatever else publishes (the canary) does so to the ops topic only.
    for (const [, policy] of t.ofType('AWS::IAM::Policy')) {
      for (const s of (policy.Properties.PolicyDocument as { Statement: never[] }).Statement) {
        const st = s as { Effect: string; Resource: unknown; Condition?: unknown };
        if (actionsOf(s).includes('sns:Publish') && st.Effect === 'Allow' && st.Resource !== '*') {
          expect(st.Resource).toEqual(ref(topicId()));
        }
      }
    }
  });

  it('keeps secret values out of the template: generated by CloudFormation', () => {
    for (const [, s] of t.ofType('AWS::SecretsManager::Secret')) {
      expect(s.Properties.SecretString).toBeUndefined();
      expect(s.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48 });
    }
    const text = JSON.stringify(t.json);
    expect(text.includes('"SecretString"'), 'a SecretString property').toBe(false);
    for (const name of ALL_SECRETS) {
      const local = process.env[name];
      if (local) expect(text.includes(local), `the value of ${name}`).toBe(false);
    }
  });

  it('creates one secret per name, documented as generated or to set after the first deploy', () => {
    const descriptions = t
      .ofType('AWS::SecretsManager::Secret')
      .map(([, s]) => String(s.Properties.Description));
    expect(descriptions).toHaveLength(ALL_SECRETS.length);
    for (const name of ALL_SECRETS) {
      const d = descriptions.find((x) => x.startsWith(`${name}:`));
      expect(d, name).toMatch(GENERATED_SECRETS.includes(name) ? /generated/ : /after the first deploy/);
    }
  });
});

describe('operations', () => {
  it('alarms on the SMS spend to the operations topic, which enforces TLS and mails the operators', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'SMSMonthToDateSpentUSD',
      Threshold: 25,
      AlarmActions: [ref(topicId())],
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: ref(topicId()),
    });
  });

  it('alarms on API 5xx rate, Lambda errors and throttles, and the canary, and has a dashboard', () => {
    const descriptions = t
      .ofType('AWS::CloudWatch::Alarm')
      .map(([, a]) => String(a.Properties.AlarmDescription));
    for (const text of ['5xx', 'Lambda errors', 'throttled', 'canary failed']) {
      expect(
        descriptions.some((d) => d.includes(text)),
        text,
      ).toBe(true);
    }
    expect(t.ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it('alarms on what the scale model says breaks first, each paging the operations topic', () => {
    const alarms = t.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const named = (metric: string) => alarms.filter((a) => JSON.stringify(a).includes(`"${metric}"`));
    // 429s: counted from the access log, whose JSON carries each request's status.
    const [[, filter] = []] = t.ofType('AWS::Logs::MetricFilter');
    expect(filter?.Properties.FilterPattern).toBe('{ $.status = "429" }');
    // The stage in the name (a filter's metric has no dimension): staging's 429s are not prod's.
    expect(filter?.Properties.MetricTransformations).toEqual([
      expect.objectContaining({ MetricName: 'Api429-test', MetricNamespace: 'HotspotPlatform' }),
    ]);
    expect(named('Api429-test')).toHaveLength(1);
    // DynamoDB: table and every index, read and write throttles, over as many alarms as it
    // takes (CloudWatch takes at most 10 metrics in one metric-math alarm); transaction conflicts.
    type MathAlarm = {
      Metrics: {
        MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
      }[];
      AlarmActions: unknown[];
    };
    const throttleAlarms = named('WriteThrottleEvents') as MathAlarm[];
    expect(throttleAlarms.length).toBeGreaterThan(1);
    const watched = throttleAlarms.flatMap((a) =>
      a.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : [])).map(
        (m) =>
          `${m.MetricName}:${m.Dimensions.find((d) => d.Name === 'GlobalSecondaryIndexName')?.Value ?? 'table'}`,
      ),
    );
    const expected = ['table', ...TABLE.indexes.map((i) => i.name)].flatMap((n) => [
      `ReadThrottleEvents:${n}`,
      `WriteThrottleEvents:${n}`,
    ]);
    expect(watched.sort()).toEqual(expected.sort());
    for (const a of throttleAlarms) {
      expect(a.Metrics.filter((m) => m.MetricStat).length).toBeLessThanOrEqual(10);
      expect(a.AlarmActions).toHaveLength(1);
    }
    expect(named('TransactionConflict')).toHaveLength(1);
    // Concurrency at 80 % of the quota; SMS delivery; reconciliation and the sweep keeping up.
    expect(named('ConcurrentExecutions')[0]).toMatchObject({ Threshold: 800 });
    expect(named('SMSSuccessRate')[0]).toMatchObject({
      Threshold: 0.9,
      ComparisonOperator: 'LessThanThreshold',
    });
    expect(named('OldestPendingPaymentAgeS')[0]).toMatchObject({ Threshold: (120 + 30) * 60 });
    expect(named('OldestOpenSessionReportAgeS')).toHaveLength(1);
    // A country's link cut (functions/radius/link-watch.ts): one of the cell's alarms.
    expect(named('CountriesCut')[0]).toMatchObject({ Threshold: 1 });
    for (const a of [
      ...named('CountriesCut'),
      ...named('Api429-test'),
      ...named('TransactionConflict'),
      ...named('ConcurrentExecutions'),
      ...named('SMSSuccessRate'),
      ...named('OldestPendingPaymentAgeS'),
      ...named('OldestOpenSessionReportAgeS'),
    ])
      expect(a.AlarmActions).toHaveLength(1);
  });

  it('outputs the API URL, the table name, the webhook URL and every secret ARN', () => {
    const outputs = t.json.Outputs ?? {};
    expect(outputs.ApiUrl).toBeDefined();
    expect(outputs.TableName).toMatchObject({ Value: ref(tableId()) });
    for (const name of ALL_SECRETS) {
      expect(outputs[`${name.replace(/_/g, '')}Arn`], name).toMatchObject({ Value: ref(secretId(name)) });
    }
    if (routes.some((r) => r.expose === 'function-url' && r.auth === 'webhook')) {
      expect(outputs.WebhookUrl).toMatchObject({
        Value: { 'Fn::GetAtt': [expect.any(String), 'FunctionUrl'] },
      });
    }
  });
});

describe('scheduled jobs', () => {
  const { stack, template: jobsTemplate } = synthesize();

  it('runs each job of functions/jobs.ts on its EventBridge schedule, with its own function', () => {
    for (const j of jobs) {
      jobsTemplate.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${j.everyMinutes} minutes)`,
        Targets: Match.arrayWith([Match.objectLike({ Arn: Match.anyValue() })]),
      });
      expect(stack.jobFunctions[j.name], j.name).toBeDefined();
    }
  });

  it('gives reconciliation the time its budget and one last gateway call need', () => {
    const fns = inspect(jobsTemplate).ofType('AWS::Lambda::Function');
    const [, reconcile] =
      fns.find(([, f]) => String(f.Properties.Description).startsWith('PaymentReconciliation:')) ?? [];
    const timeoutS = Number(reconcile?.Properties.Timeout);
    const b = billingSettings();
    const neededMs =
      b.RECONCILE_BUDGET_MS +
      worstCallMs(b.PROVIDER_TIMEOUT_MS, b.PROVIDER_ATTEMPTS, b.AGGREGATOR_RETRY_BASE_MS);
    expect(timeoutS * 1000).toBeGreaterThanOrEqual(neededMs + 1000);
    // About 260 payments abandoned every 5 minutes at peak (docs/scale.md): one run takes them all.
    expect(b.RECONCILE_BATCH).toBeGreaterThanOrEqual(260);
  });

  it('gives the session sweep the time its budget, a last close and its backlog count need', () => {
    const fns = inspect(jobsTemplate).ofType('AWS::Lambda::Function');
    const [, sweep] = fns.find(([, f]) => String(f.Properties.Description).startsWith('SessionSweep:')) ?? [];
    const timeoutS = Number(sweep?.Properties.Timeout);
    // A close is one transaction (its retries a few more); the count of what is left, 65 Queries.
    expect(timeoutS * 1000).toBeGreaterThanOrEqual(radiusSettings().RADIUS_SWEEP_BUDGET_MS + 10_000);
  });
});

describe('stream consumers', () => {
  const { stack, template: streamsTemplate } = synthesize();
  const s = inspect(streamsTemplate);
  const tableOf = () => {
    const [table] = s.ofType('AWS::DynamoDB::Table');
    if (!table) throw new Error('no table');
    return table;
  };

  it("enables the table's stream with the new image of each item", () => {
    expect(tableOf()[1].Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('gives each consumer of functions/streams.ts a function fed by the stream: its filter, batching, bisect, retries, item failures and a DLQ', () => {
    expect(streamConsumers.length).toBeGreaterThan(0);
    for (const c of streamConsumers) {
      const fnId = s.functionIdOf(c.name);
      expect(c.maxBatchingWindowS).toBeLessThanOrEqual(1);
      const [queueId] =
        s.ofType('AWS::SQS::Queue').find(([id]) => id.startsWith(`${c.name}DeadLetters`)) ?? [];
      expect(queueId, c.name).toBeDefined();
      streamsTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: fnId },
        EventSourceArn: { 'Fn::GetAtt': [tableOf()[0], 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: c.batchSize,
        MaximumBatchingWindowInSeconds: c.maxBatchingWindowS,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: c.retryAttempts,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify(c.filter) }] },
      });
      // It reads the stream and writes the table (what its access names; a transaction's items
      // are authorised as UpdateItem), and may send to its DLQ.
      const actions = s.statementsOfFunction(fnId).flatMap(actionsOf);
      expect(actions).toEqual(
        expect.arrayContaining([
          'dynamodb:ListStreams',
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
          'dynamodb:UpdateItem',
        ]),
      );
      expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage']));
      expect(stack.streamConsumers[c.name]?.fn).toBeDefined();
    }
    // The stream is the consumers' grant alone: no route's function may list or describe it.
    for (const r of routes)
      expect(s.statementsOf(routeKey(r)).flatMap(actionsOf)).not.toContain('dynamodb:ListStreams');
  });

  it('counts only session items that carry uncounted (the filter Lambda applies)', () => {
    const counts = streamConsumers.find((c) => c.name === 'SessionCounts');
    expect(counts?.filter).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { entity: { S: ['radius_session'] }, uncounted: { BOOL: [true] } } },
    });
  });

  it("pages the operations topic on each consumer's iterator age and on its dead-letter queue", () => {
    const alarms = s.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const c of streamConsumers) {
      const age = alarms.find(
        (a) =>
          a.MetricName === 'IteratorAge' && JSON.stringify(a.Dimensions).includes(s.functionIdOf(c.name)),
      );
      expect(age, `${c.name} iterator age`).toMatchObject({
        Statistic: 'Maximum',
        Threshold: 60_000,
        AlarmActions: [{ Ref: expect.stringMatching(/^OpsTopic/) }],
      });
      const dlq = alarms.find(
        (a) =>
          a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(a.Dimensions).includes(`${c.name}DeadLetters`),
      );
      expect(dlq, `${c.name} dead letters`).toMatchObject({
        Threshold: 1,
        AlarmActions: [{ Ref: expect.stringMatching(/^OpsTopic/) }],
      });
    }
  });
});
