// Stands in for the SDK's node credential provider in the bundles: a Lambda reads its credentials from the environment.

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (esbuild alias in
 * lib/bundling.ts). Lambda hands every function its role's credentials in the environment, so
 * the SDK's full chain (SSO, INI files, web identity, IMDS, and the STS/SSO clients behind them)
 * is dead weight in a bundle and costs start-up time. Same exports as the real module.
 */

import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { AwsCredentialIdentity } from '@aws-sdk/types';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
export const credentialsWillNeedRefresh = (c?: AwsCredentialIdentity): boolean => c?.expiration !== undefined;
export const credentialsTreatedAsExpired = (c?: AwsCredentialIdentity): boolean =>
  c?.expiration !== undefined && c.expiration.getTime() - Date.now() < 300_000;
