// The canary's own construct: its function, schedule, probes' settings and alarms.

import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { BUNDLING } from './bundling.js';
import { SECRETS_EXTENSION } from './secrets-extension.js';

/**
 * What the canary probes (docs/monitoring.md). Every value becomes one `CANARY_*` variable
 * of the function (functions/monitoring/settings.ts); a check left unconfigured fails with
 * `not_configured`, so an unconfigured canary never looks healthy.
 */
export interface CanaryTargets {
  /** The nas_id of the hotspot the canary stands for (its alerts' `site`). Default `access_canary`. */
  siteNasId?: string;
  /** The API's public status URL (the stack passes its own `.../api/v1/monitoring/status`). */
  apiUrl: string;
  dns?: { server: string; testName: string; sinkholeIp: string; timeoutMs?: number };
  radius?: { host: string; port?: number; user?: string; timeoutMs?: number };
  portal?: { url: string; marker: string; timeoutMs?: number };
  data?: { url: string; bytes: number; timeoutMs?: number };
  /** Failed runs in a row that raise the SLA_DEGRADED alert. Default 3. */
  alertAfter?: number;
  apiTimeoutMs?: number;
}

export interface CanaryProps {
  table: ITable;
  /** Operations topic: the canary publishes its alerts here. */
  opsTopic: ITopic;
  /** Must hold RADIUS_SECRET (the NAS shared secret) and CANARY_PASSWORD (the canary account's). */
  secrets: { RADIUS_SECRET: ISecret; CANARY_PASSWORD: ISecret } & Record<string, ISecret>;
  targets: CanaryTargets;
  /** Default: every 5 minutes. */
  schedule?: Schedule;
  /**
   * Optional VPC placement. RADIUS and the DNS resolver usually sit on the operator's private
   * network: place the canary in subnets that reach them (and, for the API, portal and data
   * checks and for DynamoDB/SNS/Secrets Manager, a NAT gateway or VPC endpoints: the secrets
   * extension calls Secrets Manager from inside the function).
   */
  vpc?: IVpc;
  vpcSubnets?: SubnetSelection;
  securityGroups?: ISecurityGroup[];
  /** Extra environment (the stack's shared settings: STAGE, JWT issuer...). */
  environment?: Record<string, string>;
  /** Overrides of the bundling (the stack may pass the settings of its API functions). */
  bundling?: BundlingOptions;
}

/** Environment variables of the canary function for a set of targets. */
export function canaryEnvironment(t: CanaryTargets): Record<string, string> {
  const env: Record<string, string | number | undefined> = {
    CANARY_SITE_NAS_ID: t.siteNasId,
    CANARY_API_URL: t.apiUrl,
    CANARY_API_TIMEOUT_MS: t.apiTimeoutMs,
    CANARY_ALERT_AFTER: t.alertAfter,
    CANARY_DNS_SERVER: t.dns?.server,
    CANARY_DNS_TEST_NAME: t.dns?.testName,
    CANARY_SINKHOLE_IP: t.dns?.sinkholeIp,
    CANARY_DNS_TIMEOUT_MS: t.dns?.timeoutMs,
    CANARY_RADIUS_HOST: t.radius?.host,
    CANARY_RADIUS_PORT: t.radius?.port,
    CANARY_RADIUS_USER: t.radius?.user,
    CANARY_RADIUS_TIMEOUT_MS: t.radius?.timeoutMs,
    CANARY_PORTAL_URL: t.portal?.url,
    CANARY_PORTAL_MARKER: t.portal?.marker,
    CANARY_PORTAL_TIMEOUT_MS: t.portal?.timeoutMs,
    CANARY_DATA_URL: t.data?.url,
    CANARY_DATA_BYTES: t.data?.bytes,
    CANARY_DATA_TIMEOUT_MS: t.data?.timeoutMs,
  };
  return Object.fromEntries(
    Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
}

const ENTRY = fileURLToPath(new URL('../functions/monitoring/canary.ts', import.meta.url));

/**
 * The canary: a function that runs the five checks, scheduled every 5 minutes by an
 * EventBridge rule, publishing its alerts to the operations topic. The stack's Observability
 * construct (lib/observability.ts) alarms on the function's errors and on missing runs: a
 * silent canary is not a healthy one.
 */
export class Canary extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: CanaryProps) {
    super(scope, id);
    const secretEnv = Object.fromEntries(
      (['RADIUS_SECRET', 'CANARY_PASSWORD'] as const).map((name) => [
        `${name}_ARN`,
        props.secrets[name].secretArn,
      ]),
    );

    // Its own role, writing to its own log group only (no AWS managed policy), as the API functions.
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    this.fn = new NodejsFunction(this, 'Function', {
      entry: ENTRY,
      role,
      handler: 'handler',
      description: 'Canary: DNS sinkhole, API, RADIUS, captive portal and data checks',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      // The slowest check (the download) has 15 s by default; the run stores its results after.
      timeout: Duration.seconds(60),
      logGroup,
      // It reads RADIUS_SECRET and CANARY_PASSWORD through the extension (lib/secrets-extension.ts).
      paramsAndSecrets: SECRETS_EXTENSION,
      environment: {
        ...props.environment,
        TABLE_NAME: props.table.tableName,
        OPS_TOPIC_ARN: props.opsTopic.topicArn,
        ...secretEnv,
        ...canaryEnvironment(props.targets),
      },
      bundling: {
        // The same bundling as the API functions (lib/bundling.ts).
        ...BUNDLING,
        ...props.bundling,
        // `radius` reads its attribute dictionaries from its own folder at run time: it ships
        // as a node module beside the bundle instead of inside it.
        nodeModules: [...new Set([...(props.bundling?.nodeModules ?? []), 'radius'])],
      },
      ...(props.vpc
        ? {
            vpc: props.vpc,
            ...(props.vpcSubnets ? { vpcSubnets: props.vpcSubnets } : {}),
            ...(props.securityGroups ? { securityGroups: props.securityGroups } : {}),
          }
        : {}),
    });

    props.table.grantReadWriteData(this.fn);
    props.opsTopic.grantPublish(this.fn);
    props.secrets.RADIUS_SECRET.grantRead(this.fn);
    props.secrets.CANARY_PASSWORD.grantRead(this.fn);

    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the canary',
      schedule: props.schedule ?? Schedule.rate(Duration.minutes(5)),
      // A missed run is not retried: the next one comes in 5 minutes.
      targets: [new LambdaFunction(this.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(4) })],
    });
  }
}
