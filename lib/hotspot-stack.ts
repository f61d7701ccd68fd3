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
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
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
import { PAYMENT_SECRETS } from '../functions/billing/gateways/registry.js';
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
import { Canary } from './canary.js';
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
import { type HeldAddress, type HotspotSettings, settingsFromContext } from './settings.js';

export { settingsFromContext };

/** The function's secrets, with every gateway's when it handles payments (`access.payments`). */
const withPaymentSecrets = (access: RouteAccess, secrets: readonly SecretName[]): SecretName[] => [
  ...new Set([...secrets, ...(access.payments ? PAYMENT_SECRETS : [])]),
];

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
  /** The router keys function (functions/routers/router-keys.ts): invoked, never routed. */
  readonly routerKeys: IFunction;
  /** The functions with a reserved concurrency of their own (function URLs), by route key. */
  readonly reservedFunctions: Record<string, IFunction> = {};
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
    this.data = new DataLayer(this, 'Data', { capacity: settings.tableCapacity });
    this.table = this.data.table;
    this.secrets = this.data.secrets;

    // Point-in-time recovery (35 days, continuous) restores the table in its region after a bad
    // write; a region lost needs a copy elsewhere. A DynamoDB backup is a full copy (no
    // increments), so each one kept is the table's size again: weekly copies kept two weeks
    // cost a twentieth of daily ones kept 35 days, twice (docs/scale.md, "The monthly bill as
    // deployed"). The copy in this region only has to outlive its copying: kept until the next.
    if (settings.backupCopyVaultArn) {
      const every = settings.backupEveryDays;
      const plan = new BackupPlan(this, 'Backups', {
        backupVault: new BackupVault(this, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN }),
        backupPlanRules: [
          new BackupPlanRule({
            ruleName: every === 7 ? 'WeeklyCopiedElsewhere' : 'DailyCopiedElsewhere',
            scheduleExpression:
              every === 7
                ? Schedule.cron({ weekDay: 'SUN', hour: '2', minute: '0' })
                : Schedule.cron({ hour: '2', minute: '0' }),
            deleteAfter: Duration.days(every + 1),
            copyActions: [
              {
                destinationBackupVault: BackupVault.fromBackupVaultArn(
                  this,
                  'BackupCopyVault',
                  settings.backupCopyVaultArn,
                ),
                deleteAfter: Duration.days(settings.backupCopyKeepDays),
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
      alarmPrefix: this.stackName,
      ...(settings.availabilityZones ? { availabilityZones: settings.availabilityZones } : {}),
      ...(settings.radiusAddresses ? { heldAddresses: settings.radiusAddresses } : {}),
      ...(settings.radiusEgressAddresses ? { heldEgressAddresses: settings.radiusEgressAddresses } : {}),
      maintenanceUtcMinute: settings.maintenanceUtcMinute,
    });
    new CfnOutput(this, 'RadiusAddresses', {
      description:
        'The RADIUS front: the addresses routers use (UDP 1812/1813, RadSec TCP 2083); the setup script adds both',
      value: Fn.join(
        ',',
        this.radiusFront.addresses.map((a) => a.publicIp),
      ),
    });
    // What a redeploy after a deletion adopts again (context radiusAddresses, radiusEgressAddresses).
    new CfnOutput(this, 'RadiusAddressAllocations', {
      description:
        'The allocation ids of the addresses above, then of the egress ones: the context that keeps them (docs/network.md)',
      value: Fn.join(',', [
        ...this.radiusFront.addresses.map((a) => a.allocationId),
        ...this.radiusFront.egressAddresses.map((a) => a.allocationId),
      ]),
    });
    new CfnOutput(this, 'RadiusEgressAddresses', {
      description:
        "Where Disconnect-Requests leave from (the front's NAT gateways): routers accept RFC 5176 from these only",
      value: Fn.join(
        ',',
        this.radiusFront.egressAddresses.map((a) => a.publicIp),
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
          this.radiusFront.addresses.map((a) => a.publicIp),
        ),
      RADIUS_DISCONNECT_FROM: Fn.join(
        ',',
        this.radiusFront.egressAddresses.map((a) => a.publicIp),
      ),
    };

    // ---- the router keys: the one function that reads ROUTER_SEAL_KEY and ROUTER_CA_KEY ----
    // No route and no URL: the functions whose row asks for `routerKeys` may invoke it (the
    // grant and ROUTER_KEYS_FUNCTION below); no function with a public route reads either key.
    const keysAccess = { table: 'read' } as const;
    const keysSecrets = ['ROUTER_SEAL_KEY', 'ROUTER_CA_KEY'] as const;
    this.routerKeys = new ServiceFunction(this, 'RouterKeys', {
      handler: 'routers/router-keys',
      environment: this.functionEnvironment(keysAccess, keysSecrets),
      description:
        "RouterKeys: seals routers' UDP secrets, signs their certificates, opens an edge's own routers' secrets for its token (no route)",
      ...this.profileFor(keysAccess, keysSecrets),
    }).fn;

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
        if (reserved > 0) {
          (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = reserved;
          this.reservedFunctions[routeKey(route)] = fn;
        }
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
          host: (this.radiusFront.addresses[0] as HeldAddress).publicIp,
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
      value: (this.radiusFront.egressAddresses[0] as HeldAddress).publicIp,
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
        RouterKeys: this.routerKeys,
      } as Record<string, IFunction>,
      reservedFunctions: this.reservedFunctions,
      streamConsumers: Object.entries(this.streamConsumers).map(([name, c]) => ({ name, ...c })),
      opsTopic: this.opsTopic,
      alarmPrefix: this.stackName,
      accountAlarms: settings.accountAlarms,
      smsSpendAlarmUsd: settings.smsSpendAlarmUsd,
      canary: canary.fn,
      ...(settings.cell ? { cell: settings.cell } : {}),
      stage: settings.stage,
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
    if (access.routerKeys) env.ROUTER_KEYS_FUNCTION = this.routerKeys.functionName;
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
    // The function itself, not its versions (`:*`): the stack publishes none.
    if (access.routerKeys)
      addToPolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.routerKeys.functionArn] }),
      );
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
    const keys = access.routerKeys ? 'RouterKeys' : '';
    const key = JSON.stringify([access.table, access.sns ?? 'none', sorted, keys]);
    const existing = this.profiles.get(key);
    if (existing) return existing;
    // A stable construct id from the profile itself: `<Table read|write|none><Sns ..>` + a digest of the secrets.
    const digest = createHash('sha256').update(sorted.join(',')).digest('hex').slice(0, 8);
    const cap = (w: string) => w[0]?.toUpperCase() + w.slice(1);
    const name = `${cap(access.table)}${cap(access.sns ?? 'none')}${keys}${sorted.length ? digest : ''}`;
    const role = new Role(this.profilesScope, `Role${name}`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Functions with table ${access.table}, sns ${access.sns ?? 'none'}, secrets ${sorted.join(' ') || 'none'}${keys ? ', the router keys' : ''}`,
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
