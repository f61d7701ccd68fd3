// POST /api/v1/resellers: Onboard a reseller: its account, VLAN, NAS id, first site and first router in one request

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { onboardReseller } from './onboard.js';
import { OnboardBody, OnboardResponse } from './reseller-schemas.js';

/** An admin onboards a reseller: account, VLAN, NAS id and first site in one request. */
export const handler = sessionEndpoint(
  'POST /api/v1/resellers',
  {
    errors: [
      'ERR_MSISDN_INVALID',
      'ERR_CONFLICT',
      'ERR_DUPLICATE_NAS_ID',
      'ERR_VLAN_POOL_EXHAUSTED',
      'ERR_NOT_FOUND',
    ],
    body: OnboardBody,
    created: OnboardResponse,
  },
  async ({ body, principal }) => json(201, await onboardReseller(principal, body)),
);
