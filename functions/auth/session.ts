// GET /api/v1/auth/session: Validate the session token

import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { phonePlans } from '../core/lazy-phone.js';
import { msisdnOfRef, type Principal } from '../core/principal.js';
import { getAgent } from '../store/agents.js';
import { getReseller } from '../store/resellers.js';
import { SessionResponse } from './schemas.js';
import { sessionEndpoint } from './session-endpoint.js';

/**
 * Who the console's header names: the reseller's business name, or the agent's name, and the
 * account's number as people write it in the reseller's country (national when it is of that
 * country), and that country (the console reads phone numbers and local times there). An
 * operator or a subscriber has no name here; its number is read in its own country.
 */
async function whoIs(principal: Principal): Promise<{ name?: string; phone: string; country?: string }> {
  const msisdn = msisdnOfRef(principal.ref);
  const reseller =
    principal.role === 'reseller' || principal.role === 'agent'
      ? await getReseller(principal.resellerId)
      : undefined;
  const name =
    principal.role === 'agent' ? (await getAgent(principal.agentId))?.name : reseller?.reseller_name;
  const plans = await phonePlans();
  const country = reseller?.country ?? plans.countryOf(msisdn);
  const phone = plans.readable(msisdn, country);
  return { ...(name ? { name } : {}), phone, ...(/^[A-Z]{2}$/.test(country) ? { country } : {}) };
}

/** The token was checked by the auth middleware; this reports what it says, and whose it is. */
export const handler = sessionEndpoint(
  'GET /api/v1/auth/session',
  { ok: SessionResponse },
  async ({ principal }) => {
    const exp = principal.exp ?? clock.nowSeconds();
    return json(200, {
      valid: true,
      subscriber_ref: principal.ref,
      expires_at: clock.iso(exp * 1000),
      role: principal.role,
      ...(await whoIs(principal)),
    });
  },
);
