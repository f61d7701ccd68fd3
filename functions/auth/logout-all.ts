// POST /api/v1/auth/logout/all: end every session of the caller's account, on every phone and tab

import { msisdnOfRef } from '../core/principal.js';
import { revokeTokens } from '../store/accounts.js';
import { endSessionOf } from './console-sessions.js';
import { sessionEndpoint } from './session-endpoint.js';

/**
 * "Se déconnecter partout": every session of the caller's account ends, on every phone and tab
 * (its token version moves on: every token and console session signed before is refused), this
 * one first. 204 whether or not the account still exists.
 */
export const handler = sessionEndpoint(
  'POST /api/v1/auth/logout/all',
  { response: { status: 204 } },
  async ({ principal }) => {
    await endSessionOf(principal);
    await revokeTokens(msisdnOfRef(principal.ref), principal.sub);
    return { status: 204 };
  },
);
