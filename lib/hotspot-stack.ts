// HotspotStack: the whole platform in one stack: the API's routes, jobs, stream consumers, RADIUS front, alarms and outputs.

/**
 * HotspotStack: the whole service in one stack.
 *
 *   DataLayer (lib/data-layer.ts)   the single table and the secrets: stateful, retained
 *   OpsTopic                        operations notifications (TLS only; e-mails from context)
 *   Api + one function per row of functions/routes.ts (function-url rows get a function URL)
 *   SmsSpendAlarm, Canary (lib/canary.ts), Observability (lib/observability.ts)
 *   RadiusFront (lib/radius-front.ts)  FreeRADIUS on Fargate behind an NLB with an Elastic IP per AZ
 *
 * For a construct that adds a function of its own (the canary), the stack exposes, read-only:
 *
 *   data: DataLayer                               the stateful construct holding the two below
 *   table: Table                                  the single table (grantReadData / grantReadWriteData)
 *   opsTopic: Topic                               the operations topic (grantPublish)
 *   secrets: Record<SecretName, Secret>           every secret by name (grantRead)
 *   api: HttpApi                                  the HTTP API
 *   functions: Record<RouteKey, IFunction>        one function per route-table row, by route key
 *   bundling: BundlingOptions                     the esbuild options of every function (lib/bundling.ts)
 *   sharedEnvironment: Readonly<Record<string, string>>
 *                                                 STAGE, SMS_MODE, AGGREGATOR_MODE, PUBLIC_BASE_URL,
 *                                                 RADIUS_HOST and RADIUS_DISCONNECT_FROM (the RADIUS
 *                                                 front's addresses) and every deploy-time setting
 *                                                 of SETTINGS given in context
 *   functionEnvironment(access: RouteAccess, secrets?: readonly SecretName[]): Record<string, string>
 *                                                 sharedEnvironment + TABLE_NAME, OPS_TOPIC_ARN and
 *                                                 `<NAME>_ARN` as that access needs them
 *   grantAccess(fn: IFunction, access: RouteAccess, secrets?: readonly SecretName[]): void
 *                                                 exactly the IAM grants a route row with that access gets
 *
 * A function built with ServiceFunction (lib/api-function.ts) plus these two methods is built
 * exactly as a route's function is (the secrets extension layer included, which ServiceFunction
 * adds when the environment names a secret):
 *
 *   const access = { table: 'write', sns: 'ops' } as const;
 *   const secrets = ['RADIUS_SECRET', 'CANARY_PASSWORD'] as const;
 *   const { fn } = new ServiceFunction(scope, 'Canary', {
 *     handler: 'monitoring/canary',
 *     environment: stack.functionEnvironment(access, secrets),
 *   });
 *   stack.grantAccess(fn, access, secrets);
 */
import { createHash } from 'node:crypto';
import {
  CfnOutput,
  Duration,
  Fn,
  NestedStack,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnEIP } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type CfnFunction,
  FilterCriteria,
  FunctionUrlAuthType,
  type IFunction,
  Function as LambdaFunction_,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { GATEWAY_NAMES, gatewayNamed, PAYMENT_SECRETS } from '../functions/billing/gateways/registry.js';
import { GENERATED_SECRETS, type SecretName } from '../functions/core/secrets.js';
import { jobs } from '../functions/jobs.js';
import {
  routes as ROUTES,
  type Route,
  type RouteAccess,
  type RouteKey,
  routeKey,
  routeSecrets,
} from '../functions/routes.js';
import { TABLE } from '../functions/store/table.js';
import { streamConsumers } from '../functions/streams.js';
import { ServiceFunction } from './api-function.js';
import { BUNDLING, routeDefine } from './bundling.js';
import { Canary, type CanaryTargets } from './canary.js';
import { DataLayer, type SecretsByName } from './data-layer.js';
import {
  acknowledge,
  SMS_PUBLISH_ACKNOWLEDGEMENT,
  STREAM_LIST_ACKNOWLEDGEMENT,
  stackAcknowledgements,
} from './nag.js';
import { Observability } from './observability.js';
import { RadiusFront } from './radius-front.js';
import { ALL_SECRETS } from './secret-names.js';

/**
 * Deploy-time settings (CDK context, `-c key=value` or cdk.json). Each one that a function reads
 * maps to one environment variable in SETTINGS below: adding a setting is one line there.
 */
interface HotspotSettings {
  stage: string;
  /**
   * The cell this deployment is (a country or a gateway site, at most 400 resellers: one VLAN
   * pool): part of the stack's name and a tag on every resource, CELL_ID in every function.
   */
  cell?: string;
  /** The API's own domain (`api.ci.example.com`) and its ACM certificate's ARN, in this region. */
  domain?: { name: string; certificateArn: string };
  throttleRate: number;
  throttleBurst: number;
  /**
   * Route throttles below the stage's, by the route's `throttle.context` (functions/routes.ts
   * gives the sizes; context `<name>Rate|Burst` resizes them). Requests per second and burst.
   */
  routeThrottles?: Record<string, { rate: number; burst: number }>;
  /**
   * Reserved concurrency of every function URL, instead of its route's `reservedConcurrency`.
   * 0: no reservation (for an account whose concurrency quota is still the new-account 10).
   */
  webhookReservedConcurrency?: number;
  /**
   * An AWS Backup vault in another region (its ARN): the table is backed up daily into a vault
   * of this stack and each backup copied there, both kept 35 days.
   */
  backupCopyVaultArn?: string;
  /** The account's Lambda concurrency quota (alarm at 80 % of it). Default 1,000. */
  concurrencyQuota?: number;
  /** Alarm when more OTPs than this are sent in an hour (counted per 15 minutes). */
  otpSentAlarmPerHour?: number;
  smsSpendAlarmUsd: number;
  opsEmails: string[];
  canary?: Omit<CanaryTargets, 'apiUrl'>;
  /** Values for the functions' environment, by variable name (see SETTINGS). */
  env: Record<string, string>;
}

/** Context key -> environment variable read by functions/core/config.ts. */
const SETTINGS: Record<string, string> = {
  providerFeeRate: 'PROVIDER_FEE_RATE',
  operatorShareRate: 'OPERATOR_SHARE_RATE',
  vlanFirstId: 'VLAN_FIRST_ID',
  vlanPoolSize: 'VLAN_POOL_SIZE',
  aggregatorBaseUrl: 'AGGREGATOR_BASE_URL',
  aggregatorTimeoutMs: 'AGGREGATOR_TIMEOUT_MS',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  /**
   * The RADIUS front's addresses for the routers' setup scripts, comma-separated. Default: the
   * front's own Elastic IPs, from the same deploy (the `RadiusAddresses` output).
   */
  radiusHost: 'RADIUS_HOST',
  smsSenderId: 'SMS_SENDER_ID',
  jwtIssuer: 'JWT_ISSUER',
  jwtAudience: 'JWT_AUDIENCE',
  // OTP budgets (functions/auth/settings.ts).
  otpRequestsPerAddressPerHour: 'OTP_REQUESTS_PER_ADDRESS_PER_HOUR',
  otpRequestsPerHour: 'OTP_REQUESTS_PER_HOUR',
  otpGuessesPerAddressPerHour: 'OTP_GUESSES_PER_ADDRESS_PER_HOUR',
  // Payments (docs/payments.md): the gateway of new payments and each gateway's settings.
  paymentGateway: 'PAYMENT_GATEWAY',
  /** Deprecated alias of `paymentGateway`. */
  paymentProvider: 'PAYMENT_PROVIDER',
  defaultCountry: 'DEFAULT_COUNTRY',
  paymentReturnUrl: 'PAYMENT_RETURN_URL',
  cinetpaySiteId: 'CINETPAY_SITE_ID',
  cinetpayBaseUrl: 'CINETPAY_BASE_URL',
  fedapayBaseUrl: 'FEDAPAY_BASE_URL',
};

/** The function's secrets, with every gateway's when it handles payments (`access.payments`). */
const withPaymentSecrets = (access: RouteAccess, secrets: readonly SecretName[]): SecretName[] => [
  ...new Set([...secrets, ...(access.payments ? PAYMENT_SECRETS : [])]),
];

/** The platform's OTP budget per clock hour when `otpRequestsPerHour` is not given (functions/auth/settings.ts). */
const OTP_REQUESTS_PER_HOUR_DEFAULT = 2000;

export function settingsFromContext(get: (key: string) => unknown): HotspotSettings {
  const env: Record<string, string> = {};
  for (const [key, name] of Object.entries(SETTINGS)) {
    const v = get(key);
    if (v !== undefined && v !== null && v !== '') env[name] = String(v);
  }
  // `-c key=value` gives strings: a value that is not a number fails the synth, not the deploy.
  const num = (key: string, fallback: number) => {
    const v = Number(get(key) ?? fallback);
    if (!Number.isFinite(v)) throw new Error(`context "${key}" must be a number`);
    return v;
  };
  // A typo here would open every payment with the default gateway: fail the synth instead.
  for (const [key, name] of [
    ['paymentGateway', 'PAYMENT_GATEWAY'],
    ['paymentProvider', 'PAYMENT_PROVIDER'],
  ] as const) {
    if (env[name] !== undefined && !gatewayNamed(env[name])) {
      throw new Error(`context "${key}" must be one of ${GATEWAY_NAMES.join(', ')}`);
    }
  }
  const emails = get('opsEmails');
  const cell = get('cell');
  if (cell !== undefined && !/^[a-z0-9][a-z0-9-]{0,30}$/.test(String(cell)))
    throw new Error('context "cell" must be lowercase letters, digits and dashes (a stack name part)');
  const domainName = get('domainName');
  const certificateArn = get('certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn))
    throw new Error('context "domainName" and "certificateArn" go together (the certificate of that name)');
  // One cell, one VLAN pool of at most 400 ids (a reseller each), within 802.1Q's 1..4094.
  const vlanFirst = num('vlanFirstId', 10);
  const vlanSize = num('vlanPoolSize', 400);
  if (vlanSize < 1 || vlanSize > 400 || vlanFirst < 2 || vlanFirst + vlanSize - 1 > 4094)
    throw new Error('context "vlanFirstId"/"vlanPoolSize": at most 400 ids, within 2..4094');
  return {
    stage: String(get('stage') ?? 'prod'),
    ...(cell ? { cell: String(cell) } : {}),
    ...(domainName ? { domain: { name: String(domainName), certificateArn: String(certificateArn) } } : {}),
    // Every other route: about 250/s spread over some sixty routes at peak; the busiest (the
    // portal page, /access/mine, /forfaits) about 50/s each.
    throttleRate: num('throttleRate', 100),
    throttleBurst: num('throttleBurst', 200),
    routeThrottles: Object.fromEntries(
      ROUTES.flatMap((r) =>
        r.throttle
          ? [
              [
                r.throttle.context,
                {
                  rate: num(`${r.throttle.context}Rate`, r.throttle.rate),
                  burst: num(`${r.throttle.context}Burst`, r.throttle.burst),
                },
              ],
            ]
          : [],
      ),
    ),
    ...(get('webhookReservedConcurrency') !== undefined
      ? { webhookReservedConcurrency: num('webhookReservedConcurrency', 0) }
      : {}),
    // Half the platform's hourly budget: operations hear of a flood before it is refused.
    otpSentAlarmPerHour: num(
      'otpSentAlarmPerHour',
      Math.ceil(num('otpRequestsPerHour', OTP_REQUESTS_PER_HOUR_DEFAULT) / 2),
    ),
    smsSpendAlarmUsd: num('smsSpendAlarmUsd', 50),
    concurrencyQuota: num('concurrencyQuota', 1000),
    ...(get('backupCopyVaultArn') ? { backupCopyVaultArn: String(get('backupCopyVaultArn')) } : {}),
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

/**
 * Areas of the route table deployed as nested stacks of their own (with this one): CloudFormation
 * takes at most 500 resources a stack and a route costs about five (function, permission,
 * integration, route, its share of a role and a log group). Their functions still use the main
 * stack's roles, log groups, table and secrets, and their routes join the same HTTP API.
 */
const NESTED_AREAS: readonly { prefix: string; id: string; description: string }[] = [
  {
    prefix: '/api/v1/agents',
    id: 'AgentsApi',
    description: "Hotspot API: resellers' agents (float, stock, sales, handovers, top-ups)",
  },
  {
    prefix: '/api/v1/edge/',
    id: 'EdgeApi',
    description: "Hotspot API: the in-country edges' routes (replica and forwarded RADIUS calls)",
  },
];

/** A route's construct id, stable as long as its method and path are: `GET /api/v1/alerts` -> `GetAlerts`. */
const idOf = (r: Pick<Route, 'method' | 'path'>): string =>
  `${r.method[0]}${r.method.slice(1).toLowerCase()}${r.path
    .replace(/^\/api\/v1/, '')
    .split(/[/_-]/)
    .filter(Boolean)
    .map((p) => p.replace(/[{}]/g, ''))
    .map((p) => (p[0] ?? '').toUpperCase() + p.slice(1))
    .join('')}`;

interface HotspotStackProps extends StackProps {
  /** The route table to build; the real one (functions/routes.ts) unless a test gives its own. */
  routes?: readonly Route[];
}

export class HotspotStack extends Stack {
  readonly data: DataLayer;
  readonly table: Table;
  readonly secrets: SecretsByName;
  readonly opsTopic: Topic;
  readonly api: HttpApi;
  /** One function per scheduled job (functions/jobs.ts), by job name. */
  readonly jobFunctions: Record<string, IFunction> = {};
  /** One function and one dead-letter queue per stream consumer (functions/streams.ts), by name. */
  readonly streamConsumers: Record<string, { fn: IFunction; deadLetters: Queue }> = {};
  /** One function per route-table row, by route key (`GET /api/v1/forfaits`). */
  readonly functions: Partial<Record<RouteKey, IFunction>> = {};
  /** The esbuild options every function of the service is bundled with. */
  readonly bundling: BundlingOptions = BUNDLING;
  /** FreeRADIUS on ECS Fargate behind the NLB (lib/radius-front.ts). */
  readonly radiusFront: RadiusFront;
  /** The environment every function of the service shares (see the comment at the top). */
  readonly sharedEnvironment: Readonly<Record<string, string>>;
  /** One role and one log group per access profile (profileFor), under the construct `Roles`. */
  private readonly profiles = new Map<string, { role: Role; logGroup: LogGroup }>();
  private readonly profilesScope: Construct = new Construct(this, 'Roles');

  constructor(scope: Construct, id: string, settings: HotspotSettings, props: HotspotStackProps = {}) {
    const { routes = ROUTES, ...stackProps } = props;
    super(scope, id, stackProps);

    // ---- stateful: the single table and the secrets ----
    this.data = new DataLayer(this, 'Data');
    this.table = this.data.table;
    this.secrets = this.data.secrets;

    // Point-in-time recovery covers a bad write; a region lost needs a copy elsewhere.
    if (settings.backupCopyVaultArn) {
      const keep = Duration.days(35);
      const plan = new BackupPlan(this, 'Backups', {
        backupVault: new BackupVault(this, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN }),
        backupPlanRules: [
          new BackupPlanRule({
            ruleName: 'DailyCopiedElsewhere',
            scheduleExpression: Schedule.cron({ hour: '2', minute: '0' }),
            deleteAfter: keep,
            copyActions: [
              {
                destinationBackupVault: BackupVault.fromBackupVaultArn(
                  this,
                  'BackupCopyVault',
                  settings.backupCopyVaultArn,
                ),
                deleteAfter: keep,
              },
            ],
          }),
        ],
      });
      const selection = plan.addSelection('Table', {
        resources: [BackupResource.fromDynamoDbTable(this.table)],
      });
      acknowledge(selection, [
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
          reason:
            "AWS Backup's own service role policy, on the role only AWS Backup assumes to back up this table: " +
            'the documented way to grant a backup plan what it needs, kept up to date by AWS.',
        },
      ]);
    }

    this.opsTopic = new Topic(this, 'OpsTopic', { displayName: 'Hotspot operations', enforceSSL: true });
    for (const email of settings.opsEmails) this.opsTopic.addSubscription(new EmailSubscription(email));

    // ---- the API: one function and one route per route-table row ----
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS });
    // No corsPreflight: the portal and dashboards are same-origin, no origin is granted (decisions.md, Hardening).
    this.api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      description: 'Hotspot reseller platform API',
    });
    const stage = new HttpStage(this, 'DefaultStage', {
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
    // Routes with a throttle of their own (their row's `throttle`, sized from docs/scale.md):
    // above the stage's default for the high-volume ones, below it for the OTP flood limits.
    const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const r of routes) {
      if (!r.throttle || r.expose === 'function-url' || r.plane === 'front') continue;
      const t = settings.routeThrottles?.[r.throttle.context] ?? r.throttle;
      routeSettings[routeKey(r)] = { ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst };
    }
    if (Object.keys(routeSettings).length) {
      (stage.node.defaultChild as CfnStage).addPropertyOverride('RouteSettings', routeSettings);
    }
    // The cell's own domain, when it has one: what routers, portals and gateways are given.
    if (settings.domain) {
      const domain = new DomainName(this, 'ApiDomain', {
        domainName: settings.domain.name,
        certificate: Certificate.fromCertificateArn(this, 'ApiCertificate', settings.domain.certificateArn),
      });
      new ApiMapping(this, 'ApiDomainMapping', { api: this.api, domainName: domain, stage });
      new CfnOutput(this, 'ApiDomainTarget', {
        value: domain.regionalDomainName,
        description: `DNS: ${settings.domain.name} CNAME (or alias) to this name`,
      });
    }
    const apiUrl =
      settings.env.PUBLIC_BASE_URL ??
      (settings.domain ? `https://${settings.domain.name}` : this.api.apiEndpoint);
    if (settings.cell) Tags.of(this).add('hotspot:cell', settings.cell);

    const baseEnvironment: Record<string, string> = {
      STAGE: settings.stage,
      ...(settings.cell ? { CELL_ID: settings.cell } : {}),
      SMS_MODE: 'sns',
      AGGREGATOR_MODE: 'http',
      POWERTOOLS_SERVICE_NAME: 'hotspot-api',
      ...settings.env,
      PUBLIC_BASE_URL: apiUrl,
    };

    // ---- the RADIUS front: FreeRADIUS on Fargate behind an NLB with fixed addresses ----
    // A nested stack, deployed with this one: its network (VPC, subnets, NAT, NLB, ECS) would
    // otherwise take about 45 of the 500 resources CloudFormation allows a stack.
    const frontStack = new NestedStack(this, 'RadiusFront', {
      description: 'Hotspot RADIUS front: FreeRADIUS on ECS Fargate behind an NLB',
    });
    this.radiusFront = new RadiusFront(frontStack, 'Front', {
      table: this.table,
      sealKey: this.secrets.ROUTER_SEAL_KEY,
      caKey: this.secrets.ROUTER_CA_KEY,
      name: `${this.stackName}-radius`,
      tlsName: 'hotspot-radius-front',
      environment: baseEnvironment,
      opsTopic: this.opsTopic,
    });
    new CfnOutput(this, 'RadiusAddresses', {
      description:
        'The RADIUS front: the addresses routers use (UDP 1812/1813, RadSec TCP 2083); the setup script adds both',
      value: Fn.join(
        ',',
        this.radiusFront.addresses.map((a) => a.attrPublicIp),
      ),
    });
    new CfnOutput(this, 'RadiusEgressAddresses', {
      description:
        "Where Disconnect-Requests leave from (the front's NAT gateways): routers accept RFC 5176 from these only",
      value: Fn.join(
        ',',
        this.radiusFront.egressAddresses.map((a) => a.attrPublicIp),
      ),
    });

    // The routers' setup scripts get the front's addresses from this deploy (no second deploy
    // to learn them): both of its addresses, and where its Disconnect-Requests leave from.
    this.sharedEnvironment = {
      ...baseEnvironment,
      RADIUS_HOST:
        settings.env.RADIUS_HOST ??
        Fn.join(
          ',',
          this.radiusFront.addresses.map((a) => a.attrPublicIp),
        ),
      RADIUS_DISCONNECT_FROM: Fn.join(
        ',',
        this.radiusFront.egressAddresses.map((a) => a.attrPublicIp),
      ),
    };

    const sharedUrls: { url: string; env: string; with: readonly string[] }[] = [];
    const areas = new Map<string, NestedStack>();
    const scopeOf = (route: Route): Construct => {
      const area = NESTED_AREAS.find((a) => route.path.startsWith(a.prefix));
      if (!area) return this;
      let nested = areas.get(area.id);
      if (!nested) {
        nested = new NestedStack(this, area.id, { description: area.description });
        // The stage's route throttles name these routes: they exist before it is updated.
        stage.node.addDependency(nested);
        areas.set(area.id, nested);
      }
      return nested;
    };
    for (const route of routes) {
      // The RADIUS data plane runs in the front's tasks (its service), not as functions.
      if (route.plane === 'front') continue;
      const scope = scopeOf(route);
      const fn = this.routeFunction(route, scope);
      this.functions[routeKey(route)] = fn;
      if (route.expose === 'function-url') {
        // No API Gateway throttle covers a function URL: its reserved concurrency caps it, so a
        // flood on it cannot take the account's concurrency from the API's functions.
        const reserved = settings.webhookReservedConcurrency ?? route.reservedConcurrency ?? 0;
        if (reserved > 0) (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = reserved;
        // Public by design: the function authenticates its caller itself (the aggregator's
        // x-provider-secret, or a gateway's signature on the raw body).
        const url = fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
        if (route.shareUrl) sharedUrls.push({ url: url.url, ...route.shareUrl });
        new CfnOutput(this, route.output ?? `${idOf(route)}Url`, {
          value: url.url,
          description: `${routeKey(route)}: ${route.summary} (docs/payments.md)`,
        });
      } else if (scope === this) {
        this.api.addRoutes({
          path: route.path,
          methods: [HttpMethod[route.method]],
          integration: new HttpLambdaIntegration(`${idOf(route)}Integration`, fn),
        });
      } else {
        // In its area's nested stack, with its integration and permission.
        new HttpRoute(scope, `${idOf(route)}Route`, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
          integration: new HttpLambdaIntegration(`${idOf(route)}Integration`, fn),
        });
      }
    }

    // A function URL other functions need (the notification address CinetPay is sent per payment).
    for (const shared of sharedUrls) {
      for (const key of shared.with) {
        const fn = this.functions[key as RouteKey];
        if (!(fn instanceof LambdaFunction_)) throw new Error(`shareUrl: no function for ${key}`);
        fn.addEnvironment(shared.env, shared.url);
      }
    }

    // ---- scheduled jobs (functions/jobs.ts): one function and one EventBridge rule each ----
    for (const j of jobs) {
      const secrets = withPaymentSecrets(j.access, j.access.secrets ?? []);
      const { fn } = new ServiceFunction(this, j.name, {
        handler: j.handler,
        environment: this.functionEnvironment(j.access, secrets),
        description: `${j.name}: ${j.summary}`,
        ...this.profileFor(j.access, secrets),
        ...(j.timeoutS ? { timeout: Duration.seconds(j.timeoutS) } : {}),
      });
      this.jobFunctions[j.name] = fn;
      new Rule(this, `${j.name}Schedule`, {
        description: j.summary,
        schedule: Schedule.rate(Duration.minutes(j.everyMinutes)),
        targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
      });
    }

    // ---- stream consumers (functions/streams.ts): a function and an event source mapping each ----
    for (const c of streamConsumers) {
      const secrets = withPaymentSecrets(c.access, c.access.secrets ?? []);
      // A role of its own, not its access profile's: reading the stream is its grant alone.
      const role = new Role(this, `${c.name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `${c.name}: table ${c.access.table} and the table's stream`,
      });
      this.grantAccess(role, c.access, secrets);
      acknowledge(role, [STREAM_LIST_ACKNOWLEDGEMENT]);
      const { fn } = new ServiceFunction(this, c.name, {
        handler: c.handler,
        environment: this.functionEnvironment(c.access, secrets),
        description: `${c.name}: ${c.summary}`,
        role,
        logGroup: new LogGroup(this, `${c.name}Logs`, { retention: RetentionDays.ONE_MONTH }),
        ...(c.timeoutS ? { timeout: Duration.seconds(c.timeoutS) } : {}),
      });
      // Batches given up on (after their retries, halved on each error) are kept here for a
      // person: an alarm (lib/observability.ts) pages on the first one. No count is lost meanwhile:
      // a session left uncounted is counted by its next report, or by the sweep's close.
      const deadLetters = new Queue(this, `${c.name}DeadLetters`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      acknowledge(deadLetters, [
        {
          id: 'AwsSolutions-SQS3',
          reason:
            "It is a dead-letter queue: the on-failure destination of the consumer's event source mapping " +
            '(cdk-nag recognises only a redrive policy as one).',
        },
      ]);
      fn.addEventSource(
        new DynamoEventSource(this.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: c.batchSize,
          maxBatchingWindow: Duration.seconds(c.maxBatchingWindowS),
          bisectBatchOnError: true,
          retryAttempts: c.retryAttempts,
          reportBatchItemFailures: true,
          onFailure: new SqsDlq(deadLetters),
          filters: [FilterCriteria.filter(c.filter)],
        }),
      );
      this.streamConsumers[c.name] = { fn, deadLetters };
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
    // Its RADIUS check goes to the front's first address, from the front's first private subnet:
    // its packets leave from that AZ's NAT gateway address (CanaryRadiusSource), where the
    // canary's own UDP router is registered (README, "Launch"). A `canary.radius` in context
    // points it elsewhere.
    const canarySubnet = this.radiusFront.vpc.privateSubnets[0];
    const canary = new Canary(this, 'Canary', {
      table: this.table,
      opsTopic: this.opsTopic,
      secrets: this.secrets,
      targets: {
        ...(settings.canary ?? {}),
        apiUrl: `${apiUrl}/api/v1/monitoring/status`,
        radius: settings.canary?.radius ?? {
          host: (this.radiusFront.addresses[0] as CfnEIP).attrPublicIp,
        },
      },
      environment: { ...this.sharedEnvironment, POWERTOOLS_SERVICE_NAME: 'hotspot-canary' },
      bundling: this.bundling,
      vpc: this.radiusFront.vpc,
      ...(canarySubnet ? { vpcSubnets: { subnets: [canarySubnet] } } : {}),
    });
    new CfnOutput(this, 'CanaryRadiusSource', {
      description:
        "Where the canary's RADIUS check comes from (the front's first NAT address): register the canary's UDP router there",
      value: (this.radiusFront.egressAddresses[0] as CfnEIP).attrPublicIp,
    });

    new Observability(this, 'Observability', {
      api: this.api,
      accessLogs,
      table: this.table,
      indexNames: TABLE.indexes.map((i) => i.name),
      ...(settings.concurrencyQuota ? { concurrencyQuota: settings.concurrencyQuota } : {}),
      // The scheduled jobs' and the stream consumers' errors page like the routes' do.
      functions: {
        ...this.functions,
        ...this.jobFunctions,
        ...Object.fromEntries(Object.entries(this.streamConsumers).map(([name, c]) => [name, c.fn])),
      } as Record<string, IFunction>,
      streamConsumers: Object.entries(this.streamConsumers).map(([name, c]) => ({ name, ...c })),
      opsTopic: this.opsTopic,
      canary: canary.fn,
      ...(settings.cell ? { cell: settings.cell } : {}),
      ...(settings.otpSentAlarmPerHour ? { otpSentAlarmPerHour: settings.otpSentAlarmPerHour } : {}),
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'OpsTopicArn', { value: this.opsTopic.topicArn });
    for (const name of ALL_SECRETS) {
      new CfnOutput(this, `${name.replace(/_/g, '')}Arn`, {
        value: this.secretNamed(name).secretArn,
        description: GENERATED_SECRETS.includes(name)
          ? `${name} (generated)`
          : `${name}: set its value after the first deploy (aws secretsmanager put-secret-value)`,
      });
    }

    acknowledge(this, stackAcknowledgements(this.data.tableLogicalId));
  }

  /** A secret the data layer created (every name of ALL_SECRETS); a name it lacks fails the synth. */
  private secretNamed(name: SecretName): Secret {
    const secret = this.secrets[name];
    if (!secret) throw new Error(`No secret ${name}: declare it in a gateway module or core/secrets.ts`);
    return secret;
  }

  /** The environment of a function with this access: the shared one plus what its grants name. */
  functionEnvironment(access: RouteAccess, secrets: readonly SecretName[] = []): Record<string, string> {
    const env: Record<string, string> = { ...this.sharedEnvironment };
    // A function without table access gets no table name at all (and no grant).
    if (access.table !== 'none') env.TABLE_NAME = this.table.tableName;
    if (access.sns === 'ops') env.OPS_TOPIC_ARN = this.opsTopic.topicArn;
    for (const name of secrets) env[`${name}_ARN`] = this.secretNamed(name).secretArn;
    return env;
  }

  /** Exactly the IAM grants of a route row with this access (and these secrets), to a function or a role. */
  grantAccess(fn: IFunction | Role, access: RouteAccess, secrets: readonly SecretName[] = []): void {
    const addToPolicy = (statement: PolicyStatement) =>
      fn instanceof Role ? fn.addToPrincipalPolicy(statement) : fn.addToRolePolicy(statement);
    if (access.table === 'read') this.table.grantReadData(fn);
    if (access.table === 'write') this.table.grantReadWriteData(fn);
    for (const name of secrets) this.secretNamed(name).grantRead(fn);
    if (access.sns === 'ops') this.opsTopic.grantPublish(fn);
    if (access.sns === 'sms') {
      // Direct-to-phone SMS has no resource ARN: allow it in this region only, and deny
      // publishing to any topic or platform endpoint, which do have one.
      addToPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['sns:Publish'],
          resources: ['*'],
          conditions: { StringEquals: { 'aws:RequestedRegion': this.region } },
        }),
      );
      addToPolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: ['sns:Publish'],
          resources: ['arn:aws:sns:*:*:*'],
        }),
      );
      // The finding sits on the role's policy, so the acknowledgement goes on that role alone.
      acknowledge(fn instanceof Role ? fn : (fn.role ?? fn), [SMS_PUBLISH_ACKNOWLEDGEMENT]);
    }
  }

  /**
   * The role and the log group of every function with this access and these secrets, created
   * and granted once.
   *
   * Functions of one access profile have the same grants, so they share a role and a log group:
   * CloudFormation takes at most 500 resources a stack, and a role, a policy and a log group per
   * function (three of the seven resources a route costs) would spend over 220 of them on 17
   * distinct sets of grants. Each log line names its function (`function_name`, Powertools), so a
   * function's logs are one filter away (Logs Insights: `filter function_name = "…"`).
   */
  profileFor(access: RouteAccess, secrets: readonly SecretName[]): { role: Role; logGroup: LogGroup } {
    const sorted = [...secrets].sort();
    const key = JSON.stringify([access.table, access.sns ?? 'none', sorted]);
    const existing = this.profiles.get(key);
    if (existing) return existing;
    // A stable construct id from the profile itself: `<Table read|write|none><Sns ..>` + a digest of the secrets.
    const digest = createHash('sha256').update(sorted.join(',')).digest('hex').slice(0, 8);
    const cap = (w: string) => w[0]?.toUpperCase() + w.slice(1);
    const name = `${cap(access.table)}${cap(access.sns ?? 'none')}${sorted.length ? digest : ''}`;
    const role = new Role(this.profilesScope, `Role${name}`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Functions with table ${access.table}, sns ${access.sns ?? 'none'}, secrets ${sorted.join(' ') || 'none'}`,
    });
    this.grantAccess(role, access, secrets);
    const logGroup = new LogGroup(this.profilesScope, `Logs${name}`, { retention: RetentionDays.ONE_MONTH });
    const profile = { role, logGroup };
    this.profiles.set(key, profile);
    return profile;
  }

  /** A route's function, with exactly the environment and grants its row declares. */
  private routeFunction(route: Route, scope: Construct): IFunction {
    const secrets = withPaymentSecrets(route.access, routeSecrets(route));
    const { fn } = new ServiceFunction(scope, idOf(route), {
      handler: route.handler,
      define: routeDefine(route),
      environment: this.functionEnvironment(route.access, secrets),
      description: `${routeKey(route)}: ${route.summary}`,
      ...this.profileFor(route.access, secrets),
    });
    return fn;
  }
}
