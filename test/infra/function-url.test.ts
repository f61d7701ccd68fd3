import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../../functions/routes.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';
import { actionsOf, inspect } from './template.js';

/**
 * A route table of its own, so that the function-url path is proven whatever rows the real
 * table holds. The handler modules are real ones: only the rows are made up.
 */
const WEBHOOK: Route = {
  method: 'POST',
  path: '/api/v1/test/webhook',
  handler: 'auth/session',
  auth: 'webhook',
  access: { table: 'write' },
  expose: 'function-url',
  // What the stack does with a function URL is in its row: the reservation and the output's name.
  reservedConcurrency: 10,
  output: 'WebhookUrl',
  summary: 'Test webhook',
};
const API_ROW: Route = {
  method: 'GET',
  path: '/api/v1/test/{id}',
  handler: 'auth/session',
  auth: 'none',
  access: { table: 'none' },
  summary: 'Test API row',
};

let app: App;
let t: ReturnType<typeof inspect>;
let template: Template;

beforeAll(() => {
  app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new HotspotStack(
    app,
    'UrlTest',
    settingsFromContext(() => undefined),
    {
      routes: [WEBHOOK, API_ROW],
    },
  );
  template = Template.fromStack(stack);
  t = inspect(template);
});

describe('a function-url row', () => {
  it('gets a function URL with no IAM auth (the function checks x-provider-secret itself)', () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [t.functionIdOf('POST /api/v1/test/webhook'), 'Arn'] },
    });
  });

  it('may be invoked by anyone through the URL only', () => {
    const fn = t.functionIdOf('POST /api/v1/test/webhook');
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      Principal: '*',
      FunctionUrlAuthType: 'NONE',
      FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: '*',
      InvokedViaFunctionUrl: true,
      FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
    });
  });

  it('gets no API route, while the other row gets exactly its own', () => {
    const keys = t.ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys).toEqual(['GET /api/v1/test/{id}']);
  });

  it('reads the webhook secret, and only it', () => {
    const env = t.envOf('POST /api/v1/test/webhook');
    expect(Object.keys(env).filter((k) => k.endsWith('_ARN'))).toEqual(['WEBHOOK_SECRET_ARN']);
    const reads = t
      .statementsOf('POST /api/v1/test/webhook')
      .filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
    expect(reads).toEqual([expect.objectContaining({ Resource: env.WEBHOOK_SECRET_ARN })]);
  });

  it('outputs the webhook URL', () => {
    template.hasOutput('WebhookUrl', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PostTestWebhookFnFunctionUrl'), 'FunctionUrl'] },
    });
  });

  it('raises no cdk-nag finding', () => {
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });
});
