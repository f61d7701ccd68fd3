// One route's Lambda function in the stack: its bundle, role, grants and settings derived from its row of the route table.

import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { type IRole, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_S } from '../functions/core/config.js';
import { BUNDLING } from './bundling.js';
import { readsSecrets, SECRETS_EXTENSION } from './secrets-extension.js';

export interface ServiceFunctionProps {
  /** Module under `functions/` (no extension) exporting `handler`. */
  handler: string;
  environment: Record<string, string>;
  description?: string;
  memorySize?: number;
  timeout?: Duration;
  /**
   * The role to run as, shared by the functions of one access profile (the stack's `profileFor`).
   * Without one the function gets a role of its own.
   */
  role?: IRole;
  /** The log group to write to, shared like the role (the stack's `profileFor`); else one of its own. */
  logGroup?: ILogGroup;
  /** esbuild defines of this function's bundle (a route's own row: `routeDefine`, lib/bundling.ts). */
  define?: Record<string, string>;
}

/**
 * One function of the service: Node.js 22 on arm64 (Graviton: cheaper per ms), ESM bundled and
 * minified by the local esbuild, a log group with a retention (its own, or its access profile's). A function whose
 * environment names a secret (`<NAME>_ARN`) gets the Parameters and Secrets extension layer it
 * reads that secret through (lib/secrets-extension.ts).
 */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = props.logGroup ?? new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    // No AWS managed policy: the role may write to the log groups of its functions only.
    const role =
      props.role ?? new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    this.fn = new NodejsFunction(this, 'Fn', {
      role,
      entry: fileURLToPath(new URL(`../functions/${props.handler}.ts`, import.meta.url)),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_TIMEOUT_S),
      bundling: props.define ? { ...BUNDLING, define: props.define } : BUNDLING,
      environment: props.environment,
      logGroup,
      description: props.description ?? props.handler,
      ...(readsSecrets(props.environment) ? { paramsAndSecrets: SECRETS_EXTENSION } : {}),
    });
  }
}
