import { AppError } from '../../core/errors.js';
import { getSecret, type SecretName } from '../../core/secrets.js';
import { billingSettings } from '../settings.js';
import type { UpstreamPolicy } from './upstream.js';

/**
 * A gateway secret, read when first needed. One the deployment never set (a gateway it does not
 * use) makes that gateway unknown here (404), not a fault of ours (500); any other failure to
 * read it (the secrets extension unreachable or failing) goes on as it came, a 503.
 */
export const gatewaySecret = (name: SecretName) => () =>
  getSecret(name).catch((error: unknown) => {
    if (error instanceof Error && error.message.endsWith('is not configured')) {
      throw new AppError('ERR_NOT_FOUND', 'Payment provider not configured');
    }
    throw error;
  });

/**
 * A gateway's secrets by the option its adapter takes each as (`{ apiKey: 'WAVE_API_KEY' }`):
 * the names are written once, for the declaration's `secrets` and for the adapter.
 */
export const gatewaySecrets = <S extends Record<string, SecretName>>(names: S) =>
  Object.fromEntries(Object.entries(names).map(([option, name]) => [option, gatewaySecret(name)])) as {
    [K in keyof S]: () => Promise<string>;
  };

/** How a gateway is called: PROVIDER_TIMEOUT_MS per attempt, PROVIDER_ATTEMPTS, back-off. */
export const gatewayPolicy = (name: string): UpstreamPolicy => {
  const b = billingSettings();
  return {
    name,
    timeoutMs: b.PROVIDER_TIMEOUT_MS,
    attempts: b.PROVIDER_ATTEMPTS,
    retryBaseMs: b.AGGREGATOR_RETRY_BASE_MS,
  };
};
