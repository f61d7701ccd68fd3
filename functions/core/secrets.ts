import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** The service's secrets. In AWS each is a Secrets Manager secret; locally, an env value. */
export type SecretName =
  | 'JWT_SECRET'
  | 'OTP_PEPPER'
  | 'WEBHOOK_SECRET'
  | 'AGGREGATOR_API_KEY'
  /** CinetPay's apikey (initialisation, /v2/payment/check). */
  | 'CINETPAY_API_KEY'
  /** CinetPay's secret key: the x-token HMAC of its notifications (`new,old` during a rotation). */
  | 'CINETPAY_SECRET_KEY'
  /** FedaPay's secret API key (`sk_live_...`), the bearer of its API. */
  | 'FEDAPAY_API_KEY'
  /** FedaPay's webhook endpoint secret (`wh_...`), the X-FEDAPAY-SIGNATURE HMAC (`new,old`). */
  | 'FEDAPAY_WEBHOOK_SECRET'
  | 'RADIUS_SECRET'
  | 'RADIUS_API_SECRET'
  | 'CANARY_PASSWORD';

/** Secrets the stack generates; the others are set by the operator after the first deploy. */
export const GENERATED_SECRETS: readonly SecretName[] = [
  'JWT_SECRET',
  'OTP_PEPPER',
  'WEBHOOK_SECRET',
  'RADIUS_API_SECRET',
];
export const ALL_SECRETS: readonly SecretName[] = [
  'JWT_SECRET',
  'OTP_PEPPER',
  'WEBHOOK_SECRET',
  'AGGREGATOR_API_KEY',
  'RADIUS_SECRET',
  'RADIUS_API_SECRET',
  'CANARY_PASSWORD',
  'CINETPAY_API_KEY',
  'CINETPAY_SECRET_KEY',
  'FEDAPAY_API_KEY',
  'FEDAPAY_WEBHOOK_SECRET',
];

let sm: SecretsManagerClient | undefined;
const cache = new Map<SecretName, Promise<string>>();

/**
 * Reads a secret once per container and caches it. `NAME` in the environment holds the value
 * itself (local mode, tests); `NAME_ARN` names the Secrets Manager secret to read (AWS).
 */
export function getSecret(name: SecretName): Promise<string> {
  let pending = cache.get(name);
  if (!pending) {
    pending = load(name);
    cache.set(name, pending);
    // A failed read is not cached: the next request tries again.
    pending.catch(() => cache.delete(name));
  }
  return pending;
}

async function load(name: SecretName): Promise<string> {
  const direct = process.env[name];
  if (direct) return direct;
  const arn = process.env[`${name}_ARN`];
  if (!arn) throw new Error(`Secret ${name} is not configured`);
  sm ??= new SecretsManagerClient({});
  const out = await sm.send(new GetSecretValueCommand({ SecretId: arn }));
  if (!out.SecretString) throw new Error(`Secret ${name} has no string value`);
  return out.SecretString;
}

/** Tests swap secrets between cases. */
export function resetSecrets(): void {
  cache.clear();
  sm = undefined;
}
