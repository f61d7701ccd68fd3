import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../functions/routes.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }
>;

let template: Template;
let resources: Resources;

beforeAll(() => {
  // Bundling is skipped: these assertions are about resources, not bundles (`npx cdk synth` bundles).
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new HotspotStack(
    app,
    'Test',
    settingsFromContext((k) => ({ stage: 'test', smsSpendAlarmUsd: 25 })[k as 'stage']),
  );
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Resources;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const routeFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description ?? '').includes(' /api/v1/'),
  );

/** The IAM statements attached to the role of the function whose description starts with `key`. */
function statementsOf(key: string): { Action: string | string[]; Effect: string; Resource: unknown }[] {
  const fn = routeFunctions().find(([, r]) => String(r.Properties.Description).startsWith(`${key}:`));
  if (!fn) throw new Error(`no function for ${key}`);
  const roleRef = (fn[1].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: never[] }).Statement);
}
const actionsOf = (key: string) =>
  statementsOf(key).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe('one function and one route per route-table row', () => {
  it('creates one Lambda function per row, each Node.js 22 on arm64', () => {
    const fns = routeFunctions();
    expect(fns).toHaveLength(routes.length);
    for (const [, fn] of fns) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
    }
  });

  it('creates exactly one API route per API row, with its method and path', () => {
    const apiRows = routes.filter((r) => r.expose !== 'function-url');
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys.sort()).toEqual(apiRows.map(routeKey).sort());
  });

  it('gives function-url rows a function URL instead of a route', () => {
    const urlRows = routes.filter((r) => r.expose === 'function-url');
    expect(ofType('AWS::Lambda::Url')).toHaveLength(urlRows.length);
  });

  it('throttles the default stage and writes JSON access logs', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });
});

describe('the table', () => {
  it('is on demand, with TTL, PITR, two GSIs, deletion protection, and retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          Match.objectLike({ IndexName: 'gsi1', Projection: { ProjectionType: 'ALL' } }),
          Match.objectLike({ IndexName: 'gsi2', Projection: { ProjectionType: 'ALL' } }),
        ],
      }),
    });
  });
});

describe('least privilege, derived from the route table', () => {
  it('never grants a * action, nor dynamodb:*', () => {
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      for (const s of (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] })
        .Statement) {
        const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
        expect(actions).not.toContain('*');
        expect(actions).not.toContain('dynamodb:*');
      }
    }
  });

  it('gives read-only rows no write action on the table', () => {
    for (const r of routes.filter((x) => x.access.table === 'read')) {
      const actions = actionsOf(routeKey(r));
      expect(actions, routeKey(r)).toContain('dynamodb:GetItem');
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

  it('gives rows without table access no DynamoDB action at all', () => {
    for (const r of routes.filter((x) => x.access.table === 'none')) {
      expect(
        actionsOf(routeKey(r)).filter((a) => a.startsWith('dynamodb:')),
        routeKey(r),
      ).toEqual([]);
    }
  });

  it('allows sns:Publish to phones only to the OTP request function, and denies it on topics', () => {
    const publishers = routes.filter((r) =>
      statementsOf(routeKey(r)).some(
        (s) => s.Effect === 'Allow' && [s.Action].flat().includes('sns:Publish') && s.Resource === '*',
      ),
    );
    expect(publishers.map(routeKey)).toEqual(['POST /api/v1/auth/otp/request']);
    expect(statementsOf('POST /api/v1/auth/otp/request')).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Resource: 'arn:aws:sns:*:*:*' }),
    );
  });

  it('gives each function read access to exactly the secrets its row needs', () => {
    const secretGrants = (key: string) =>
      statementsOf(key)
        .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'))
        .map((s) => JSON.stringify(s.Resource));
    expect(secretGrants('GET /api/v1/forfaits')).toHaveLength(0);
    expect(secretGrants('GET /api/v1/auth/session')).toHaveLength(1);
    expect(secretGrants('POST /api/v1/auth/otp/verify')).toHaveLength(2);
  });

  it('keeps secret values out of the template (generated by CloudFormation)', () => {
    for (const [, s] of ofType('AWS::SecretsManager::Secret')) {
      expect(s.Properties.SecretString).toBeUndefined();
      expect(s.Properties.GenerateSecretString).toBeDefined();
    }
    expect(JSON.stringify(template.toJSON())).not.toContain(process.env.JWT_SECRET as string);
  });
});

describe('operations', () => {
  it('alarms on the SMS spend to the operations topic, which enforces TLS', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'SMSMonthToDateSpentUSD',
      Threshold: 25,
      AlarmActions: [{ Ref: Match.stringLikeRegexp('OpsTopic') }],
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('alarms on API 5xx rate, Lambda errors and throttles, and the canary, and has a dashboard', () => {
    const descriptions = ofType('AWS::CloudWatch::Alarm').map(([, a]) =>
      String(a.Properties.AlarmDescription),
    );
    for (const text of ['5xx', 'Lambda errors', 'throttled', 'canary failed']) {
      expect(
        descriptions.some((d) => d.includes(text)),
        text,
      ).toBe(true);
    }
    expect(ofType('AWS::CloudWatch::Dashboard')).toHaveLength(1);
  });

  it('gives every function a log group with a retention', () => {
    const retained = ofType('AWS::Logs::LogGroup').filter(([, g]) => g.Properties.RetentionInDays);
    expect(retained.length).toBeGreaterThanOrEqual(routes.length + 1);
  });
});
