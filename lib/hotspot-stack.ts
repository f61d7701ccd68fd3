import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { ALL_SECRETS, GENERATED_SECRETS, type SecretName } from '../functions/core/secrets.js';
import { type Route, routeKey, routeSecrets, routes } from '../functions/routes.js';
import { TABLE } from '../functions/store/table.js';
import { ServiceFunction } from './api-function.js';
import { Canary, type CanaryTargets } from './canary.js';
import { Observability } from './observability.js';

/**
 * Deploy-time settings (CDK context, `-c key=value` or cdk.json). Each one that a function reads
 * maps to one environment variable in SETTINGS below: adding a setting is one line there.
 */
export interface HotspotSettings {
  stage: string;
  throttleRate: number;
  throttleBurst: number;
  smsSpendAlarmUsd: number;
  opsEmails: string[];
  canary?: Omit<CanaryTargets, 'apiUrl'>;
  /** Values for the functions' environment, by variable name (see SETTINGS). */
  env: Record<string, string>;
}

/** Context key -> environment variable read by functions/core/config.ts. */
export const SETTINGS: Record<string, string> = {
  providerFeeRate: 'PROVIDER_FEE_RATE',
  operatorShareRate: 'OPERATOR_SHARE_RATE',
  vlanFirstId: 'VLAN_FIRST_ID',
  vlanPoolSize: 'VLAN_POOL_SIZE',
  aggregatorBaseUrl: 'AGGREGATOR_BASE_URL',
  aggregatorTimeoutMs: 'AGGREGATOR_TIMEOUT_MS',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  smsSenderId: 'SMS_SENDER_ID',
  jwtIssuer: 'JWT_ISSUER',
  jwtAudience: 'JWT_AUDIENCE',
};

export function settingsFromContext(get: (key: string) => unknown): HotspotSettings {
  const env: Record<string, string> = {};
  for (const [key, name] of Object.entries(SETTINGS)) {
    const v = get(key);
    if (v !== undefined && v !== null && v !== '') env[name] = String(v);
  }
  const emails = get('opsEmails');
  return {
    stage: String(get('stage') ?? 'prod'),
    throttleRate: Number(get('throttleRate') ?? 50),
    throttleBurst: Number(get('throttleBurst') ?? 100),
    smsSpendAlarmUsd: Number(get('smsSpendAlarmUsd') ?? 50),
    opsEmails: Array.isArray(emails)
      ? emails.map(String)
      : typeof emails === 'string' && emails
        ? emails.split(',')
        : [],
    ...(get('canary') !== undefined ? { canary: parseCanary(get('canary')) } : {}),
    env,
  };
}

/** The `canary` context: an object in cdk.json, or a JSON string from `-c canary='{...}'`. */
function parseCanary(raw: unknown): Omit<CanaryTargets, 'apiUrl'> {
  const value = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  if (typeof value !== 'object' || value === null) throw new Error('context "canary" must be an object');
  return value as Omit<CanaryTargets, 'apiUrl'>;
}

const idOf = (r: Route) =>
  `${r.method[0]}${r.method.slice(1).toLowerCase()}${r.path
    .replace(/^\/api\/v1/, '')
    .split(/[/_-]/)
    .filter(Boolean)
    .map((p) => p.replace(/[{}]/g, ''))
    .map((p) => (p[0] ?? '').toUpperCase() + p.slice(1))
    .join('')}`;

/**
 * The whole service in one stack: the table and secrets (stateful, retained), the HTTP API with
 * one function per route-table row, the webhook's function URL, the canary, alarms and a
 * dashboard. Public members (`table`, `opsTopic`, `secrets`, `functions`) let further constructs
 * wire in the same way.
 */
export class HotspotStack extends Stack {
  readonly table: Table;
  readonly secrets: Record<SecretName, Secret>;
  readonly opsTopic: Topic;
  readonly api: HttpApi;
  /** One function per route-table row, by route key (`GET /api/v1/forfaits`). */
  readonly functions: Record<string, IFunction> = {};

  constructor(scope: Construct, id: string, settings: HotspotSettings, props?: StackProps) {
    super(scope, id, props);

    // ---- stateful: the single table and the secrets ----
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    this.secrets = Object.fromEntries(
      ALL_SECRETS.map((name) => [
        name,
        new Secret(this, `Secret${name}`, {
          description: GENERATED_SECRETS.includes(name)
            ? `${name}: generated by the stack`
            : `${name}: set the real value after the first deploy (aws secretsmanager put-secret-value)`,
          generateSecretString: { passwordLength: 48, excludePunctuation: true },
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      ]),
    ) as Record<SecretName, Secret>;

    this.opsTopic = new Topic(this, 'OpsTopic', { displayName: 'Hotspot operations', enforceSSL: true });
    for (const email of settings.opsEmails) this.opsTopic.addSubscription(new EmailSubscription(email));

    // ---- the API: one function and one route per route-table row ----
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS });
    this.api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      description: 'Hotspot reseller platform API',
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
      },
    });
    const apiUrl = settings.env.PUBLIC_BASE_URL ?? this.api.apiEndpoint;

    const baseEnv = {
      STAGE: settings.stage,
      SMS_MODE: 'sns',
      AGGREGATOR_MODE: 'http',
      POWERTOOLS_SERVICE_NAME: 'hotspot-api',
      ...settings.env,
      PUBLIC_BASE_URL: apiUrl,
    };

    for (const route of routes) {
      const fn = this.routeFunction(route, baseEnv);
      this.functions[routeKey(route)] = fn;
      if (route.expose === 'function-url') {
        const url = fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
        new CfnOutput(this, `${idOf(route)}Url`, {
          value: url.url,
          description: `${routeKey(route)}: give this URL to the payment aggregator (checks x-provider-secret)`,
        });
        if (route.auth === 'webhook') new CfnOutput(this, 'WebhookUrl', { value: url.url });
      } else {
        this.api.addRoutes({
          path: route.path,
          methods: [HttpMethod[route.method]],
          integration: new HttpLambdaIntegration(`${idOf(route)}Integration`, fn),
        });
      }
    }

    // ---- SMS spend alarm ----
    const smsSpend = new cloudwatch.Alarm(this, 'SmsSpendAlarm', {
      metric: new cloudwatch.Metric({
        namespace: 'AWS/SNS',
        metricName: 'SMSMonthToDateSpentUSD',
        statistic: 'Maximum',
        period: Duration.hours(1),
      }),
      threshold: settings.smsSpendAlarmUsd,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `SMS spend this month reached ${settings.smsSpendAlarmUsd} USD`,
    });
    smsSpend.addAlarmAction(new SnsAction(this.opsTopic));

    // ---- the canary, every 5 minutes ----
    const canary = new Canary(this, 'Canary', {
      table: this.table,
      opsTopic: this.opsTopic,
      secrets: this.secrets,
      targets: { ...(settings.canary ?? {}), apiUrl: `${apiUrl}/api/v1/monitoring/status` },
      environment: { STAGE: settings.stage, POWERTOOLS_SERVICE_NAME: 'hotspot-canary' },
    });

    new Observability(this, 'Observability', {
      api: this.api,
      functions: this.functions,
      opsTopic: this.opsTopic,
      canary: canary.fn,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'OpsTopicArn', { value: this.opsTopic.topicArn });
    for (const name of ALL_SECRETS) {
      new CfnOutput(this, `${name.replace(/_/g, '')}Arn`, {
        value: this.secrets[name].secretArn,
        description: GENERATED_SECRETS.includes(name)
          ? `${name} (generated)`
          : `${name}: set its value after deploy`,
      });
    }
  }

  /** A route's function, with exactly the grants its row declares. */
  private routeFunction(route: Route, baseEnv: Record<string, string>): IFunction {
    const secrets = routeSecrets(route);
    const env: Record<string, string> = { ...baseEnv };
    if (route.access.table !== 'none') env.TABLE_NAME = this.table.tableName;
    for (const name of secrets) env[`${name}_ARN`] = this.secrets[name].secretArn;
    if (route.access.sns === 'ops') env.OPS_TOPIC_ARN = this.opsTopic.topicArn;
    if (route.access.table === 'none') env.TABLE_NAME = 'none';

    const { fn } = new ServiceFunction(this, idOf(route), {
      handler: route.handler,
      environment: env,
      description: `${routeKey(route)}: ${route.summary}`,
    });
    if (route.access.table === 'read') this.table.grantReadData(fn);
    if (route.access.table === 'write') this.table.grantReadWriteData(fn);
    for (const name of secrets) this.secrets[name].grantRead(fn);
    if (route.access.sns === 'ops') this.opsTopic.grantPublish(fn);
    if (route.access.sns === 'sms') {
      // Direct-to-phone SMS has no topic ARN to scope to; deny publishing to any topic instead.
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions: ['sns:Publish'], resources: ['*'] }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: ['sns:Publish'],
          resources: ['arn:aws:sns:*:*:*'],
        }),
      );
    }
    return fn;
  }
}
