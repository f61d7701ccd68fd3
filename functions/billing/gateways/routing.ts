// Which gateway a payment of a country and provider is opened with.

import type { Country } from '../../core/currency.js';
import type { Provider } from '../../store/payments.js';
import { configuredGateway, type Gateway, gatewayNamed } from './registry.js';

/**
 * THE routing table: which gateway opens a payment, by the hotspot's country and the buyer's
 * operator (the specification's `provider`: orange_money, mtn_momo, moov_money, wave). A pair
 * not listed goes to the deployment's gateway (PAYMENT_GATEWAY). Wave is reached directly in
 * Senegal and Côte d'Ivoire, where it is the cheapest wallet and an aggregator only adds its fee.
 *
 * A route is taken only when the deployment enabled its gateway (PAYMENT_DIRECT_GATEWAYS, with
 * that gateway's secrets set): a deployment without a Wave contract keeps every payment on its
 * aggregator.
 */
export const ROUTES: Partial<Record<Country, Partial<Record<Provider, Gateway>>>> = {
  SN: { wave: gatewayNamed('wave') as Gateway },
  CI: { wave: gatewayNamed('wave') as Gateway },
};

/** The gateway a payment of this country and operator is opened with. */
export function gatewayFor(country: Country, provider: Provider, enabled: readonly string[]): Gateway {
  const direct = ROUTES[country]?.[provider];
  return direct && enabled.includes(direct) ? direct : configuredGateway();
}
