// POST /api/v1/auth/logout: End every session token of the caller's account

import { msisdnOfRef } from '../core/principal.js';
import { revokeTokens } from '../store/accounts.js';
import { sessionEndpoint } from './session-endpoint.js';

/**
 * Ends every session token of the caller's account, this one included: the account's token
 * version moves on. An operator's tokens are refused from the next request on; a subscriber's
 * wherever revocation is checked (functions/auth/tokens.ts), and all end with their 900 s.
 * 204 whether or not the account still exists: the caller learns nothing either way.
 */
export const handler = sessionEndpoint(
  'POST /api/v1/auth/logout',
  { response: { status: 204 } },
  async ({ principal }) => {
    await revokeTokens(msisdnOfRef(principal.ref), principal.sub);
    return { status: 204 };
  },
);
