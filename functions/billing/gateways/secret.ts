// A gateway's secrets and settings declared once, by the adapter option each becomes, and read when first needed.

import * as z from 'zod/mini';
import { defineSettings } from '../../core/config.js';
import { AppError } from '../../core/errors.js';
import { intSetting } from '../../core/schemas.js';
import { getSecret, type SecretName } from '../../core/secrets.js';
import { billingSettings } from '../settings.js';
import type { GatewayAdapter, GatewayDeclaration } from './port.js';
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

/** The options a declared gateway's adapter is built with: settings, secrets, calling policy. */
type DeclaredOptions<V, M extends Record<string, keyof V>, S> = { [O in keyof M]: V[M[O]] } & {
  [O in keyof S]: () => Promise<string>;
} & { policy: UpstreamPolicy };

/**
 * A gateway that posts its own signed notification, declared once. Its secrets and settings
 * are named by the option its adapter takes each as (`{ apiKey: 'WAVE_API_KEY' }`,
 * `{ baseUrl: 'WAVE_BASE_URL' }`): the names are written once, for the declaration (grants,
 * Secrets Manager, the settings documented with it) and for the adapter, which is built with
 * their values and the calling policy when a payment first needs it.
 */
export function signedGateway<
  N extends string,
  S extends Record<string, SecretName>,
  V extends Record<string, unknown>,
  M extends Record<string, keyof V & string>,
>(
  name: N,
  declared: {
    secrets: S;
    /** The settings reader of the module that declares them, and the settings by option. */
    settings: readonly [read: () => V, byOption: M];
    adapter: (options: DeclaredOptions<V, M, S>) => GatewayAdapter;
  },
): GatewayDeclaration<N> {
  const [read, byOption] = declared.settings;
  return {
    name,
    secrets: Object.values(declared.secrets),
    notifies: 'signed',
    settings: Object.values(byOption),
    adapter: () => {
      const values = read();
      const settings = Object.fromEntries(
        Object.entries(byOption).map(([o, setting]) => [o, values[setting]]),
      );
      return declared.adapter({
        ...settings,
        ...gatewaySecrets(declared.secrets),
        policy: gatewayPolicy(name),
      } as DeclaredOptions<V, M, S>);
    },
  };
}

/**
 * The settings of a gateway with a bearer-key API and a timestamped, signed webhook, declared
 * with it: `<P>_BASE_URL`, its API, and `<P>_TOLERANCE_S`, the seconds a signature's timestamp
 * may differ from our clock before it is refused (300 by default, the gateways' own SDKs' value).
 */
export function timestampedSettings<P extends string>(
  prefix: P,
  baseUrl: string,
): () => Record<`${P}_BASE_URL`, string> & Record<`${P}_TOLERANCE_S`, number> {
  return defineSettings(
    z.object({
      [`${prefix}_BASE_URL`]: z._default(z.string(), baseUrl),
      [`${prefix}_TOLERANCE_S`]: z._default(intSetting, 300),
    }),
  ) as () => Record<`${P}_BASE_URL`, string> & Record<`${P}_TOLERANCE_S`, number>;
}
