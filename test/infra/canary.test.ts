import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { Canary } from '../../lib/canary.js';

// Bundling is skipped: these assertions are about the resources, not the bundle.
function synth(): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'CanaryTest', { env: { account: '111122223333', region: 'eu-west-1' } });
  const table = new Table(stack, 'Table', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    sortKey: { name: 'sk', type: AttributeType.STRING },
  });
  const opsTopic = new Topic(stack, 'Ops');
  new Canary(stack, 'Canary', {
    table,
    opsTopic,
    secrets: {
      RADIUS_SECRET: new Secret(stack, 'Radius'),
      CANARY_PASSWORD: new Secret(stack, 'CanaryPassword'),
    },
    targets: {
      apiUrl: 'https://api.example.com/api/v1/monitoring/status',
      siteNasId: 'access_chez_awa',
      dns: { server: '10.0.0.53', testName: 'blocked.canary.test', sinkholeIp: '10.0.0.99' },
      radius: { host: '10.0.0.10', port: 1812 },
      portal: { url: 'http://10.0.0.20/portal', marker: 'hotspot-portal' },
      data: { url: 'http://10.0.0.20/1mb.bin', bytes: 1_048_576 },
    },
  });
  return Template.fromStack(stack);
}

let template: Template;
beforeAll(() => {
  template = synth();
});

const canaryFunction = () => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: { CANARY_SITE_NAS_ID: 'access_chez_awa' } } },
  });
  const [id] = Object.keys(fns);
  if (!id) throw new Error('no canary function');
  return id;
};

describe('the canary construct', () => {
  it('schedules the canary function every 5 minutes with EventBridge', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [canaryFunction(), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [canaryFunction(), 'Arn'] },
    });
  });

  it('runs the canary on Node.js 22, arm64, with its targets and the ops topic in its environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: {
        Variables: Match.objectLike({
          OPS_TOPIC_ARN: { Ref: Match.stringLikeRegexp('^Ops') },
          CANARY_DNS_SERVER: '10.0.0.53',
          CANARY_SINKHOLE_IP: '10.0.0.99',
          CANARY_RADIUS_HOST: '10.0.0.10',
          CANARY_RADIUS_PORT: '1812',
          CANARY_DATA_BYTES: '1048576',
          CANARY_API_URL: 'https://api.example.com/api/v1/monitoring/status',
          RADIUS_SECRET_ARN: { Ref: Match.stringLikeRegexp('^Radius') },
          CANARY_PASSWORD_ARN: { Ref: Match.stringLikeRegexp('^CanaryPassword') },
        }),
      },
    });
  });

  it('reads its secrets through the Parameters and Secrets extension layer, its cache on', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          CANARY_SITE_NAS_ID: 'access_chez_awa',
          PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'true',
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
        }),
      },
      Layers: [
        Match.stringLikeRegexp(
          '^arn:aws:lambda:eu-west-1:\\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\\d+$',
        ),
      ],
    });
  });

  it('lets the canary publish to the ops topic and read the two secrets, and nothing else of SNS', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties
          .PolicyDocument.Statement,
    );
    const publish = statements.filter((s) => s.Action === 'sns:Publish');
    expect(publish).toHaveLength(1);
    expect(publish[0]?.Resource).toEqual({ Ref: expect.stringMatching(/^Ops/) });
    const secretReads = statements.filter((s) =>
      JSON.stringify(s.Action).includes('secretsmanager:GetSecretValue'),
    );
    expect(JSON.stringify(secretReads)).toMatch(/Radius/);
    expect(JSON.stringify(secretReads)).toMatch(/CanaryPassword/);
  });
});

describe('the canary in the service stack', () => {
  let stackTemplate: Template;
  beforeAll(async () => {
    const { HotspotStack, settingsFromContext } = await import('../../lib/hotspot-stack.js');
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const context: Record<string, unknown> = {
      stage: 'test',
      canary: { siteNasId: 'access_canary', radius: { host: '10.0.0.10' } },
    };
    const stack = new HotspotStack(
      app,
      'HotspotTest',
      settingsFromContext((k) => context[k]),
      {
        env: { account: '111122223333', region: 'eu-west-1' },
      },
    );
    stackTemplate = Template.fromStack(stack);
  });

  const canaryId = () => {
    const [id] = Object.keys(
      stackTemplate.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { CANARY_SITE_NAS_ID: 'access_canary' } } },
      }),
    );
    if (!id) throw new Error('the stack has no canary function');
    return id;
  };

  it('schedules exactly one rule, every 5 minutes, at the canary function', () => {
    const rules = Object.values(stackTemplate.findResources('AWS::Events::Rule')) as {
      Properties: { Targets: { Arn: unknown }[] };
    }[];
    const atCanary = rules.filter((r) =>
      r.Properties.Targets.some(
        (t) => JSON.stringify(t.Arn) === JSON.stringify({ 'Fn::GetAtt': [canaryId(), 'Arn'] }),
      ),
    );
    expect(atCanary).toHaveLength(1);
    stackTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [canaryId(), 'Arn'] } })],
    });
  });

  it('runs the canary on nodejs22.x and arm64, pointed at the API status route and the ops topic', () => {
    const fn = stackTemplate.findResources('AWS::Lambda::Function')[canaryId()] as {
      Properties: {
        Runtime: string;
        Architectures: string[];
        Environment: { Variables: Record<string, unknown> };
      };
    };
    expect(fn.Properties.Runtime).toBe('nodejs22.x');
    expect(fn.Properties.Architectures).toEqual(['arm64']);
    const vars = fn.Properties.Environment.Variables;
    const topics = Object.keys(stackTemplate.findResources('AWS::SNS::Topic'));
    expect(topics).toHaveLength(1);
    expect(vars.OPS_TOPIC_ARN).toEqual({ Ref: topics[0] });
    expect(JSON.stringify(vars.CANARY_API_URL)).toContain('/api/v1/monitoring/status');
    expect(vars.CANARY_RADIUS_HOST).toBe('10.0.0.10');
    expect(vars.RADIUS_SECRET_ARN).toBeDefined();
    expect(vars.CANARY_PASSWORD_ARN).toBeDefined();
  });

  it('has an operations topic the canary may publish to', () => {
    const topicId = Object.keys(stackTemplate.findResources('AWS::SNS::Topic'))[0];
    const policies = Object.values(stackTemplate.findResources('AWS::IAM::Policy')) as {
      Properties: {
        PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] };
        Roles: unknown[];
      };
    }[];
    const canaryRole = (
      stackTemplate.findResources('AWS::Lambda::Function')[canaryId()] as {
        Properties: { Role: { 'Fn::GetAtt': [string, string] } };
      }
    ).Properties.Role['Fn::GetAtt'][0];
    const canaryStatements = policies
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(canaryRole))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(canaryStatements).toContainEqual(
      expect.objectContaining({ Action: 'sns:Publish', Resource: { Ref: topicId } }),
    );
  });
});
