// POST /api/v1/auth/logout: end this console session only (the others stay)

import { msisdnOfRef } from '../core/principal.js';
import { revokeTokens } from '../store/accounts.js';
import { endSessionOf } from './console-sessions.js';
import { sessionEndpoint } from './session-endpoint.js';

/**
 * Ends the caller's session. A console session's token (an operator's, an agent's) ends that
 * session only, its refresh token with it: the account's other tabs and phones keep theirs
 * ("log out everywhere" is POST /auth/logout/all). A token of no console session (a
 * subscriber's) ends every token of its account, as it always did: its version moves on, and
 * all end with their 900 s. 204 whether or not the account still exists: the caller learns
 * nothing either way.
 */
export const handler = sessionEndpoint(
  'POST /api/v1/auth/logout',
  { response: { status: 204 } },
  async ({ principal }) => {
    if (!(await endSessionOf(principal))) await revokeTokens(msisdnOfRef(principal.ref), principal.sub);
    return { status: 204 };
  },
);
