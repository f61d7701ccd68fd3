// The Parameters and Secrets extension layer of every function that reads a secret.

import { Duration } from 'aws-cdk-lib';
import {
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
} from 'aws-cdk-lib/aws-lambda';
import { ALL_SECRETS } from './secret-names.js';

/**
 * The Parameters and Secrets extension (an AWS layer) of every function that reads a secret:
 * `getSecret` (functions/core/secrets.ts) asks it on localhost instead of bundling a Secrets
 * Manager client. The CDK sets the layer's ARN for the function's region and architecture and
 * its settings as environment variables (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT among them,
 * which `getSecret` reads).
 *
 * - Cache on, for the default 5 minutes (its maximum): `getSecret` keeps a value for the
 *   container's life anyway; the extension's cache serves a retry after one of our reads gave up.
 * - Its own call to Secrets Manager is bounded (5 s), beyond `getSecret`'s 2 s: a slow fetch
 *   still completes into the cache for the retry, and a hung one does not hold the extension.
 * - Warnings and errors only in the function's logs (an error status it answers is explained
 *   there, since `getSecret` reports the status alone).
 */
export const SECRETS_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
  cacheEnabled: true,
  secretsManagerTtl: Duration.minutes(5),
  secretsManagerTimeout: Duration.seconds(5),
  logLevel: ParamsAndSecretsLogLevel.WARN,
});

/**
 * True when an environment names a secret by ARN (`<NAME>_ARN`): the function reads it in AWS,
 * so it gets the extension. The environment decides, so a function cannot name a secret and
 * lack the layer, nor carry the layer for nothing.
 */
export const readsSecrets = (environment: Readonly<Record<string, string>>): boolean =>
  ALL_SECRETS.some((name) => `${name}_ARN` in environment);
