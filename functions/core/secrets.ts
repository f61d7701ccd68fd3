/**
 * The service's secrets, read once per container.
 *
 * Locally and in tests, `NAME` in the environment holds the value itself. In AWS, `NAME_ARN`
 * names the Secrets Manager secret, and the value is asked of the Parameters and Secrets
 * extension: a Lambda layer AWS provides (lib/secrets-extension.ts adds it to every function
 * that names a secret) that answers on localhost and fetches from Secrets Manager itself.
 *
 * Why the extension rather than the SDK's Secrets Manager client: the client was bundled into
 * every function that reads a secret (~13 KB minified each) and imported on each of their cold
 * starts, for one call per secret per container. The layer is outside our bundles, and reaching
 * it takes `node:http` only (not the global `fetch`, whose loading at first use costs start-up
 * time too). The extension also keeps its own cache: a fetch still under way when our request
 * gave up lands there, and the retry is answered without a second call to Secrets Manager.
 *
 * A read the extension does not answer (unreachable, no answer within EXTENSION_TIMEOUT_MS, an
 * error status) is a SecretsUnavailable error, which `toAppError` turns into a retryable
 * `503 ERR_UNAVAILABLE`, as a DynamoDB outage is; a secret the function was not given stays an
 * internal error. No error message carries the secret's value or the session token.
 *
 * Secrets are read from handlers, within a request, not at module load.
 */
import { request } from 'node:http';
import { sharedPromise } from './shared-promise.js';

/** The service's own secrets. In AWS each is a Secrets Manager secret; locally, an env value. */
export type ServiceSecretName =
  | 'JWT_SECRET'
  | 'OTP_PEPPER'
  | 'WEBHOOK_SECRET'
  | 'RADIUS_SECRET'
  | 'RADIUS_API_SECRET'
  /**
   * The key material of the platform's router CA (functions/routers/ca.mts derives its P-256 key
   * from it). Read only by what issues certificates: router registration and new credentials,
   * and the RADIUS front's certificate rotation. In AWS it is the secret first created as
   * ROUTER_KEY_SEED (lib/data-layer.ts keeps its logical id), so routers' certificates stay valid.
   */
  | 'ROUTER_CA_KEY'
  /**
   * The key that seals routers' UDP secrets in the table (functions/routers/secret-box.ts): read
   * by what seals (registration, new credentials) and what opens them (the client lookup, the
   * Disconnect claim), none of which can issue a certificate.
   */
  | 'ROUTER_SEAL_KEY'
  | 'CANARY_PASSWORD';

/**
 * A payment gateway's secret (`CINETPAY_API_KEY`, `FEDAPAY_WEBHOOK_SECRET`, ...): each gateway
 * declares its own in its module (functions/billing/gateways/), so that adding one does not
 * touch this file; their list is the registry's PAYMENT_SECRETS.
 */
export type GatewaySecretName = `${Uppercase<string>}_KEY` | `${Uppercase<string>}_SECRET`;

export type SecretName = ServiceSecretName | GatewaySecretName;

/** Secrets the stack generates; the others are set by the operator after the first deploy. */
export const GENERATED_SECRETS: readonly SecretName[] = [
  'JWT_SECRET',
  'OTP_PEPPER',
  'WEBHOOK_SECRET',
  'RADIUS_API_SECRET',
  'ROUTER_CA_KEY',
  'ROUTER_SEAL_KEY',
];
/** The service's own secrets; with the gateways' (lib/secret-names.ts ALL_SECRETS), every secret. */
export const SERVICE_SECRETS: readonly ServiceSecretName[] = [
  'JWT_SECRET',
  'OTP_PEPPER',
  'WEBHOOK_SECRET',
  'RADIUS_SECRET',
  'RADIUS_API_SECRET',
  'ROUTER_CA_KEY',
  'ROUTER_SEAL_KEY',
  'CANARY_PASSWORD',
];

/** How long a read from the extension may take, answer included (it may call Secrets Manager first). */
const EXTENSION_TIMEOUT_MS = 2000;
/** The extension's port when the function's environment does not say (the layer's own default). */
const DEFAULT_EXTENSION_PORT = 2773;

/**
 * The extension did not give the secret: unreachable, too slow, or an error status. Its name is
 * one `isUnavailable` (functions/core/errors.ts) counts as a dependency down: a 503, retry later.
 */
class SecretsUnavailable extends Error {
  override readonly name = 'SecretsUnavailable';
}

const cache = new Map<SecretName, Promise<string>>();

/**
 * Reads a secret once per container and caches it. `NAME` in the environment holds the value
 * itself (local mode, tests); `NAME_ARN` names the Secrets Manager secret, read through the
 * Parameters and Secrets extension (AWS).
 */
export function getSecret(name: SecretName): Promise<string> {
  // A failed read is not cached: the next request tries again.
  return sharedPromise(cache, name, () => load(name));
}

async function load(name: SecretName): Promise<string> {
  const direct = process.env[name];
  if (direct) return direct;
  const arn = process.env[`${name}_ARN`];
  if (!arn) throw new Error(`Secret ${name} is not configured`);
  const body = await fromExtension(name, arn);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not the parser's message: it quotes the text it could not read.
    throw new Error(`Secret ${name}: the extension's answer is not JSON`);
  }
  const value = (parsed as { SecretString?: unknown } | null)?.SecretString;
  if (typeof value !== 'string' || !value) throw new Error(`Secret ${name} has no string value`);
  return value;
}

/**
 * `GET /secretsmanager/get?secretId=<arn>` on the extension, authenticated by the function's
 * session token; the body is Secrets Manager's GetSecretValue answer, as JSON.
 */
function fromExtension(name: SecretName, arn: string): Promise<string> {
  const token = process.env.AWS_SESSION_TOKEN;
  if (!token)
    return Promise.reject(new Error(`Secret ${name}: no AWS_SESSION_TOKEN to ask the extension with`));
  const port = Number(process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT || DEFAULT_EXTENSION_PORT);
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (error: Error | undefined, body?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(body as string);
    };
    const unavailable = (why: string, cause?: unknown) =>
      new SecretsUnavailable(`Secret ${name}: the secrets extension ${why}`, { cause });

    const req = request(
      {
        host: 'localhost',
        port,
        path: `/secretsmanager/get?secretId=${encodeURIComponent(arn)}`,
        method: 'GET',
        headers: { 'X-Aws-Parameters-Secrets-Token': token },
        // One read per secret per container: no connection to keep.
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          // Its body (Secrets Manager's error) is left unread: the status says enough here, and
          // the extension logs the cause itself.
          res.resume();
          settle(unavailable(`answered ${status}`));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => settle(undefined, Buffer.concat(chunks).toString('utf8')));
        res.on('error', (error) => settle(unavailable('broke off its answer', error)));
        res.on('close', () => {
          if (!res.complete) settle(unavailable('broke off its answer'));
        });
      },
    );
    timer = setTimeout(() => {
      settle(unavailable(`did not answer within ${EXTENSION_TIMEOUT_MS} ms`));
      req.destroy();
    }, EXTENSION_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) =>
      settle(unavailable(`is unreachable (${error.code ?? error.name})`, error)),
    );
    req.end();
  });
}

/** Tests swap secrets between cases. */
export function resetSecrets(): void {
  cache.clear();
}
