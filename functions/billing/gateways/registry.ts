// THE gateway registry: every payment gateway by name, and what derives from it (secrets, settings, notify paths).

import { config } from '../../core/config.js';
import type { SecretName } from '../../core/secrets.js';
import type { PaymentGateway } from '../../store/payments.js';
import { billingSettings } from '../settings.js';
import { cinetpay } from './cinetpay.js';
import { fedapay } from './fedapay.js';
import { http } from './http.js';
import type { GatewayAdapter, GatewayDeclaration } from './port.js';
import { sandbox } from './sandbox.js';
import { wave } from './wave.js';

/**
 * THE gateway registry: every payment gateway the service speaks, by name. Adding a gateway is
 * its module (its declaration and its adapter, like ./sandbox.ts) and one line here: the route
 * and job grants, the Secrets Manager secrets, the `paymentGateway` check of the CDK stack and
 * the notify route all derive from this list. Only the payment flows and the CDK stack import it
 * (the route table names the gateways' secrets by `access.payments`), so no other function's
 * bundle carries the adapters.
 */
const GATEWAYS = { sandbox, http, cinetpay, fedapay, wave } as const satisfies Record<
  string,
  GatewayDeclaration
>;

/**
 * A gateway's name, as stored on a payment (`gateway`, the store's branded `PaymentGateway`:
 * only a name validated here is stored) and in its notification path.
 */
export type Gateway = keyof typeof GATEWAYS & PaymentGateway;
export const GATEWAY_NAMES = Object.keys(GATEWAYS) as Gateway[];

/** Every gateway's secrets: what a function that opens, confirms or settles payments is given. */
export const PAYMENT_SECRETS: readonly SecretName[] = [
  ...new Set(Object.values(GATEWAYS).flatMap((g: GatewayDeclaration) => g.secrets)),
];

/** A gateway named in a notification path or a setting, if the service has one. */
export const gatewayNamed = (name: string | undefined): Gateway | undefined =>
  name !== undefined && Object.hasOwn(GATEWAYS, name) ? (name as Gateway) : undefined;

/**
 * The gateway new payments are opened with: PAYMENT_GATEWAY, the one setting. Its older names
 * are read as deprecated aliases: PAYMENT_PROVIDER, then AGGREGATOR_MODE (`sandbox` | `http`).
 * A name no gateway has fails loudly rather than opening payments elsewhere.
 */
export function configuredGateway(): Gateway {
  const b = billingSettings();
  const name = b.PAYMENT_GATEWAY ?? b.PAYMENT_PROVIDER ?? config().AGGREGATOR_MODE;
  const gateway = gatewayNamed(name);
  if (!gateway) throw new Error(`PAYMENT_GATEWAY must be one of ${GATEWAY_NAMES.join(', ')}`);
  return gateway;
}

/**
 * The adapter of a gateway. A payment is always settled with the gateway it was opened with, so
 * that payments opened before an operator switched gateways still settle.
 */
export const adapterFor = (gateway: Gateway): GatewayAdapter =>
  GATEWAYS[gateway as keyof typeof GATEWAYS].adapter();

/**
 * Whether a delivery of the spec webhook for a pending payment of this gateway is confirmed with
 * its status API before it is credited (a late completion always is).
 */
export const confirmsPending = (gateway: Gateway): boolean =>
  (GATEWAYS[gateway as keyof typeof GATEWAYS] as GatewayDeclaration).confirmsPending !== false &&
  billingSettings().AGGREGATOR_CONFIRM_WEBHOOK === 'true';

/** The path a gateway's notifications are posted to (the notify route's `{provider}` is its name). */
export const notifyPath = (gateway: Gateway) => `/api/v1/payments/notify/${gateway}`;
