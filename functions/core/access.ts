// Who may see or change what (a reseller's own, an admin's all, an agent's, a payer's), decided here and nowhere else.

import { forbidden, notFound, validation } from './errors.js';
import type { AgentPrincipal, AgentScopePrincipal, OperatorPrincipal, Principal } from './principal.js';

/**
 * Who may see or change what, decided here and nowhere else. Every rule takes a verified
 * principal (never an optional one), so a handler that forgot authentication cannot call it.
 *
 * - A reseller acts only for itself; an admin acts for any reseller; a subscriber for none.
 * - A router (RADIUS client credentials) is seen and changed by its reseller and admins only;
 *   another reseller gets "not found".
 * - A subscriber sees only its own payments; an admin sees all; resellers see none by id
 *   (their money shows in the billing summary). Someone else's payment is "not found", so its
 *   existence does not leak.
 * - An agent sees itself only; its reseller and admins see it; anyone else gets "not found" (an
 *   agent learns nothing of other agents, a reseller nothing of another reseller's). Only the
 *   agent itself sells from its float or stock; only its reseller or an admin gives it float,
 *   stock or terms, and records the cash it hands over.
 */

/** Throws 403 unless the caller is the reseller `resellerId` or an admin. */
export function assertActsFor(principal: Principal, resellerId: string): void {
  // Optional chaining: even a caller that bypassed the types with no principal gets a 403.
  if (principal?.role === 'admin') return;
  if (principal?.role === 'reseller' && principal.resellerId === resellerId) return;
  throw forbidden('You may only act for your own reseller account');
}

/**
 * The reseller whose data a list shows. A reseller gets its own (naming another is a 403); an
 * admin gets the one it names, or undefined for every reseller when `adminMayOmit`.
 */
export function resellerInScope(
  principal: OperatorPrincipal,
  asked: string | undefined,
  options: { adminMayOmit: true },
): string | undefined;
export function resellerInScope(
  principal: OperatorPrincipal,
  asked: string | undefined,
  options?: { adminMayOmit: false },
): string;
export function resellerInScope(
  principal: OperatorPrincipal,
  asked: string | undefined,
  options: { adminMayOmit: boolean } = { adminMayOmit: false },
): string | undefined {
  if (principal?.role === 'reseller') {
    if (asked !== undefined && asked !== principal.resellerId) throw forbidden();
    return principal.resellerId;
  }
  if (principal?.role !== 'admin') throw forbidden();
  if (asked === undefined && !options.adminMayOmit) {
    throw validation('reseller_id is required', [{ path: 'query.reseller_id', message: 'required' }]);
  }
  return asked;
}

/** Throws 404 unless the payment is the caller's own (or the caller is an admin). */
export function assertSeesPayment<T extends { subscriber_id: string }>(
  principal: Principal,
  payment: T | undefined,
): asserts payment is T {
  if (!payment) throw notFound('Payment');
  if (principal?.role === 'admin' || (principal && principal.sub === payment.subscriber_id)) return;
  throw notFound('Payment');
}

/**
 * Throws 404 unless the item (a RADIUS session, an access code) belongs to the caller's
 * reseller, or the caller is an admin: another reseller's item is "not found", as a payment is,
 * so that its existence does not leak.
 */
export function assertOwns<T extends { reseller_id: string }>(
  principal: Principal,
  item: T | undefined,
  what: string,
): asserts item is T {
  if (!item) throw notFound(what);
  if (principal?.role === 'admin') return;
  if (principal?.role === 'reseller' && principal.resellerId === item.reseller_id) return;
  throw notFound(what);
}

/**
 * Throws 404 unless the router is the caller's reseller's own (or the caller is an admin): a
 * router of another reseller is "not found", so router ids do not leak between resellers.
 */
export function assertSeesRouter<T extends { reseller_id: string }>(
  principal: Principal,
  router: T | undefined,
): asserts router is T {
  assertOwns(principal, router, 'Router');
}

/** The agent's reseller or an admin: who manage an agent. */
const managesAgent = (principal: AgentScopePrincipal, agent: { reseller_id: string }): boolean =>
  principal?.role === 'admin' ||
  (principal?.role === 'reseller' && principal.resellerId === agent.reseller_id);

/** Throws 404 unless the caller is the agent itself, the agent's reseller, or an admin. */
export function assertSeesAgent<T extends { id: string; reseller_id: string }>(
  principal: AgentScopePrincipal,
  agent: T | undefined,
): asserts agent is T {
  if (!agent) throw notFound('Agent');
  const itself =
    principal?.role === 'agent' &&
    principal.agentId === agent.id &&
    principal.resellerId === agent.reseller_id;
  if (!itself && !managesAgent(principal, agent)) throw notFound('Agent');
}

/** Throws 404 unless the caller is the agent's reseller or an admin (who manage the agent). */
export function assertManagesAgent<T extends { id: string; reseller_id: string }>(
  principal: OperatorPrincipal,
  agent: T | undefined,
): asserts agent is T {
  if (!agent || !managesAgent(principal, agent)) throw notFound('Agent');
}

/**
 * Throws unless the caller is the agent itself: 404 for whoever may not see the agent, 403 for
 * its reseller and admins (they see it, but a sale is the agent's own act, from its own cash).
 */
export function assertIsAgent<T extends { id: string; reseller_id: string }>(
  principal: AgentScopePrincipal,
  agent: T | undefined,
): asserts principal is AgentPrincipal {
  assertSeesAgent(principal, agent);
  if (principal.role !== 'agent') throw forbidden('Only the agent itself sells');
}

/**
 * Throws 404 unless the access code is the caller's: a subscriber's own code (its buyer, or the
 * one who redeemed it), its reseller's, or any for an admin. Anyone else's is "not found".
 */
export function assertHoldsCode<T extends { reseller_id: string; subscriber_id?: string }>(
  principal: Principal,
  code: T | undefined,
): asserts code is T {
  if (!code) throw notFound('Access code');
  if (
    principal?.role === 'subscriber' &&
    code.subscriber_id !== undefined &&
    principal.sub === code.subscriber_id
  )
    return;
  if (principal?.role === 'subscriber') throw notFound('Access code');
  assertOwns(principal, code, 'Access code');
}
