import { describe, expect, expectTypeOf, it } from 'vitest';
import type { sessionEndpoint } from '../../functions/auth/session-endpoint.js';
import {
  assertActsFor,
  assertHoldsCode,
  assertIsAgent,
  assertManagesAgent,
  assertOwns,
  assertSeesAgent,
  assertSeesPayment,
  assertSeesRouter,
  resellerInScope,
} from '../../functions/core/access.js';
import type { endpoint } from '../../functions/core/http.js';
import type {
  AdminPrincipal,
  AgentScopePrincipal,
  OperatorPrincipal,
  Principal,
} from '../../functions/core/principal.js';
import type { OpenRouteKey, SessionRouteKey } from '../../functions/routes.js';

const exp = 4102444800;
const admin: Principal = { sub: 'a', ref: 'SUB-1', role: 'admin', exp };
const reseller: Principal = { sub: 'r', ref: 'SUB-2', role: 'reseller', resellerId: 'R1', exp };
const subscriber: Principal = { sub: 's', ref: 'SUB-3', role: 'subscriber', exp };
const agent: Principal = { sub: 'g', ref: 'SUB-4', role: 'agent', resellerId: 'R1', agentId: 'A1', exp };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'passed';
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('the access rules', () => {
  it("lets a code's own subscriber, its reseller and any admin hold an access code; anyone else is told it does not exist", () => {
    const code = { reseller_id: 'R1', subscriber_id: 's' };
    expect(codeOf(() => assertHoldsCode(subscriber, code))).toBe('passed');
    expect(codeOf(() => assertHoldsCode(reseller, code))).toBe('passed');
    expect(codeOf(() => assertHoldsCode(admin, code))).toBe('passed');
    expect(codeOf(() => assertHoldsCode({ ...subscriber, sub: 'other' }, code))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertHoldsCode(subscriber, { reseller_id: 'R1' }))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertHoldsCode({ ...reseller, resellerId: 'R2' }, code))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertHoldsCode(agent, code))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertHoldsCode(admin, undefined))).toBe('ERR_NOT_FOUND');
  });

  it('lets the owning reseller and any admin act for a reseller, and nobody else', () => {
    expect(codeOf(() => assertActsFor(admin, 'R1'))).toBe('passed');
    expect(codeOf(() => assertActsFor(reseller, 'R1'))).toBe('passed');
    expect(codeOf(() => assertActsFor(reseller, 'R2'))).toBe('ERR_FORBIDDEN');
    expect(codeOf(() => assertActsFor(subscriber, 'R1'))).toBe('ERR_FORBIDDEN');
  });

  it('refuses a call that reached it with no principal at all, instead of letting it through', () => {
    const missing = undefined as unknown as Principal;
    expect(codeOf(() => assertActsFor(missing, 'R1'))).toBe('ERR_FORBIDDEN');
    expect(codeOf(() => resellerInScope(missing as never, 'R1'))).toBe('ERR_FORBIDDEN');
    expect(codeOf(() => assertSeesPayment(missing, { subscriber_id: 's' }))).toBe('ERR_NOT_FOUND');
  });

  it("scopes a list to the reseller's own, and makes an admin name one unless all may be shown", () => {
    expect(resellerInScope(reseller as never, undefined)).toBe('R1');
    expect(codeOf(() => resellerInScope(reseller as never, 'R2'))).toBe('ERR_FORBIDDEN');
    expect(resellerInScope(admin as never, 'R2')).toBe('R2');
    expect(codeOf(() => resellerInScope(admin as never, undefined))).toBe('ERR_VALIDATION');
    expect(resellerInScope(admin as never, undefined, { adminMayOmit: true })).toBeUndefined();
  });

  it('shows a router to its reseller and admins, and answers not found to anyone else', () => {
    const router = { reseller_id: 'R1' };
    expect(codeOf(() => assertSeesRouter(reseller, router))).toBe('passed');
    expect(codeOf(() => assertSeesRouter(admin, router))).toBe('passed');
    expect(codeOf(() => assertSeesRouter(reseller, { reseller_id: 'R2' }))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesRouter(subscriber, router))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesRouter(admin, undefined))).toBe('ERR_NOT_FOUND');
  });

  it('shows a payment to its payer and admins, and answers not found to anyone else', () => {
    const payment = { subscriber_id: 's' };
    expect(codeOf(() => assertSeesPayment(subscriber, payment))).toBe('passed');
    expect(codeOf(() => assertSeesPayment(admin, payment))).toBe('passed');
    expect(codeOf(() => assertSeesPayment({ ...subscriber, sub: 'other' }, payment))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesPayment(reseller, payment))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesPayment(admin, undefined))).toBe('ERR_NOT_FOUND');
  });

  it("shows a reseller's session or code to that reseller and admins, and answers not found to anyone else", () => {
    const session = { reseller_id: 'R1' };
    expect(codeOf(() => assertOwns(reseller, session, 'Session'))).toBe('passed');
    expect(codeOf(() => assertOwns(admin, session, 'Session'))).toBe('passed');
    expect(codeOf(() => assertOwns({ ...reseller, resellerId: 'R2' }, session, 'Session'))).toBe(
      'ERR_NOT_FOUND',
    );
    expect(codeOf(() => assertOwns(subscriber, session, 'Session'))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertOwns(admin, undefined, 'Session'))).toBe('ERR_NOT_FOUND');
  });

  it('shows an agent to itself, its reseller and admins, and answers not found to other agents and resellers', () => {
    const a1 = { id: 'A1', reseller_id: 'R1' };
    const a2 = { id: 'A2', reseller_id: 'R1' };
    const elsewhere = { id: 'A3', reseller_id: 'R2' };
    expect(codeOf(() => assertSeesAgent(agent as never, a1))).toBe('passed');
    expect(codeOf(() => assertSeesAgent(reseller as never, a1))).toBe('passed');
    expect(codeOf(() => assertSeesAgent(admin as never, elsewhere))).toBe('passed');
    expect(codeOf(() => assertSeesAgent(agent as never, a2))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesAgent(reseller as never, elsewhere))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesAgent(subscriber as never, a1))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertSeesAgent(admin as never, undefined))).toBe('ERR_NOT_FOUND');
    // An agent token whose reseller is not the agent's own (a moved agent) sees nothing.
    expect(codeOf(() => assertSeesAgent({ ...agent, resellerId: 'R2' } as never, a1))).toBe('ERR_NOT_FOUND');
  });

  it('lets only the agent itself sell, and only its reseller or an admin manage it', () => {
    const a1 = { id: 'A1', reseller_id: 'R1' };
    expect(codeOf(() => assertIsAgent(agent as never, a1))).toBe('passed');
    expect(codeOf(() => assertIsAgent(reseller as never, a1))).toBe('ERR_FORBIDDEN');
    expect(codeOf(() => assertIsAgent(admin as never, a1))).toBe('ERR_FORBIDDEN');
    expect(codeOf(() => assertIsAgent(agent as never, { id: 'A2', reseller_id: 'R1' }))).toBe(
      'ERR_NOT_FOUND',
    );
    expect(codeOf(() => assertManagesAgent(reseller as never, a1))).toBe('passed');
    expect(codeOf(() => assertManagesAgent(admin as never, a1))).toBe('passed');
    expect(codeOf(() => assertManagesAgent(agent as never, a1))).toBe('ERR_NOT_FOUND');
    expect(codeOf(() => assertManagesAgent({ ...reseller, resellerId: 'R2' } as never, a1))).toBe(
      'ERR_NOT_FOUND',
    );
  });
});

describe('the principal a handler receives', () => {
  /** The principal the function given to `sessionEndpoint` (or `endpoint`) for route K receives. */
  type SessionPrincipal<K extends SessionRouteKey> = Parameters<
    Parameters<typeof sessionEndpoint<K>>[2]
  >[0]['principal'];
  type OpenPrincipal<K extends OpenRouteKey> = Parameters<Parameters<typeof endpoint<K>>[2]>[0]['principal'];

  it('is typed by the route auth level, so a handler cannot forget that it is there', () => {
    expectTypeOf<SessionPrincipal<'GET /api/v1/billing/summary'>>().toEqualTypeOf<OperatorPrincipal>();
    expectTypeOf<SessionPrincipal<'POST /api/v1/vouchers/generate'>>().toEqualTypeOf<AdminPrincipal>();
    expectTypeOf<SessionPrincipal<'GET /api/v1/auth/session'>>().toEqualTypeOf<Principal>();
    expectTypeOf<OpenPrincipal<'GET /api/v1/forfaits'>>().toEqualTypeOf<undefined>();
    expectTypeOf<SessionPrincipal<'POST /api/v1/agents/{id}/sales'>>().toEqualTypeOf<AgentScopePrincipal>();
    expectTypeOf<OpenPrincipal<'POST /api/v1/payments/webhook'>>().toEqualTypeOf<undefined>();
  });
});
