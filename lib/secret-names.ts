// Every secret the stack creates, by name.

import { PAYMENT_SECRETS } from '../functions/billing/gateways/registry.js';
import { SERVICE_SECRETS, type SecretName } from '../functions/core/secrets.js';

/**
 * Every secret the stack creates: the service's own and those the registered payment gateways
 * declare (functions/billing/gateways/registry.ts), each once.
 */
export const ALL_SECRETS: readonly SecretName[] = [...SERVICE_SECRETS, ...PAYMENT_SECRETS];
