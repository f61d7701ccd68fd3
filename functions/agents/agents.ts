// A reseller's agents: invited, accepted, listed, their terms changed, and a code sold by an agent for cash.

import { randomUUID } from 'node:crypto';
import { openConsoleSession } from '../auth/console-sessions.js';
import { normalizeMsisdnLoaded, subscriberRef } from '../auth/otp.js';
import { agentCashSale, bookings, forfaitForSale, newAccessCode, offerOf } from '../billing/ledger.js';
import { useByFrom } from '../billing/settings.js';
import { accessCodeText, type CodeSold } from '../billing/sms-texts.js';
import { assertIsAgent, assertManagesAgent, assertSeesAgent, resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { AppError, forbidden, notFound, validation } from '../core/errors.js';
import { gsm7Segments, toGsm7 } from '../core/gsm7.js';
import { log, maskMsisdn } from '../core/log.js';
import {
  type AgentScopePrincipal,
  msisdnOfRef,
  type OperatorPrincipal,
  type Principal,
  sessionClaims,
} from '../core/principal.js';
import { type SmsTicket, takeResellerSms } from '../sms/reseller-sms.js';
import { accessCodeCreate } from '../store/access-codes.js';
import { getAccount, sessionStateOf } from '../store/accounts.js';
import { acceptAgent, inviteAgent } from '../store/agent-accounts.js';
import {
  type Agent,
  type AgentSale,
  getAgent,
  listAgents,
  NEW_AGENT_BOOKS,
  recordAgentSale,
  updateAgentTerms,
} from '../store/agents.js';
import { getNas } from '../store/nas.js';
import { getReseller } from '../store/resellers.js';
import { untilSettled } from '../store/retry.js';
import { shownSale } from './agent-reports.js';

/** Whether an agent's stock or float pays for a forfait. */
export const covers = (a: Agent, f: { id: string; price_fcfa: number }) =>
  (a.stock[f.id] ?? 0) > 0 || a.float_fcfa >= f.price_fcfa;

/** Neither covers it: an agent that sells it from a stock, and holds no float, ran out of stock. */
export const exhausted = (a: Agent, f: { id: string; price_fcfa: number }) =>
  new AppError(
    f.id in a.stock && a.float_fcfa === 0 ? 'ERR_AGENT_STOCK_EXHAUSTED' : 'ERR_AGENT_FLOAT_EXHAUSTED',
    `Your float (${a.float_fcfa} FCFA) and stock do not cover this forfait (${f.price_fcfa} FCFA)`,
  );

/** The agent's commission on a price: basis points, rounded to the nearest franc. */
export const commissionOf = (priceFcfa: number, bp: number): number => Math.round((priceFcfa * bp) / 10_000);

/** A number typed for a reseller: international, or national in the reseller's country. */
const msisdnOrThrow = async (raw: string, path: string, country: string | undefined): Promise<string> => {
  const msisdn = await normalizeMsisdnLoaded(raw, country);
  if (!msisdn) {
    throw new AppError('ERR_MSISDN_INVALID', 'msisdn must be a number of a served country', {
      details: [{ path, message: 'not a number of a served country' }],
    });
  }
  return msisdn;
};

/** Every NAS id must be a hotspot of the reseller (400 otherwise, another's or none alike). */
async function checkNasIds(resellerId: string, nasIds: readonly string[] | undefined): Promise<void> {
  for (const nasId of nasIds ?? []) {
    if ((await getNas(nasId))?.reseller_id !== resellerId) {
      throw validation('nas_ids must be hotspots of the reseller', [
        { path: 'body.nas_ids', message: nasId },
      ]);
    }
  }
}

/**
 * A reseller (or an admin for one) invites an agent: the agent is recorded `invited` and the
 * number is texted the invitation, with the console link that accepts it. Nothing changes for
 * the number until its holder accepts (`acceptInvitation`): no reseller makes a subscriber its
 * agent, and takes its subscriber's account (and "remember this phone") away, without consent.
 */
export async function addAgent(
  principal: OperatorPrincipal,
  input: { msisdn: string; reseller_id?: string; name?: string; commission_bp: number; nas_ids?: string[] },
): Promise<Agent> {
  const resellerId = resellerInScope(principal, input.reseller_id);
  const reseller = await getReseller(resellerId);
  if (!reseller) throw notFound('Reseller');
  const msisdn = await msisdnOrThrow(input.msisdn, 'body.msisdn', reseller.country);
  await checkNasIds(resellerId, input.nas_ids);
  const existing = await getAccount(msisdn);
  // One number, one role: an operator or an agent already is refused now, not at acceptance.
  if (existing && existing.role !== 'subscriber') {
    throw new AppError('ERR_CONFLICT', 'This number is already an operator or an agent');
  }
  const agent: Agent & { status: 'invited' } = {
    id: randomUUID(),
    reseller_id: resellerId,
    msisdn,
    ...(input.name ? { name: input.name } : {}),
    ...(input.nas_ids?.length ? { nas_ids: input.nas_ids } : {}),
    commission_bp: input.commission_bp,
    ...NEW_AGENT_BOOKS,
    stock: {},
    created_at: clock.iso(),
    status: 'invited',
  };
  // The SMS is taken from the reseller's budgets first: past one, 429 and nothing recorded.
  const sms = await takeResellerSms(resellerId, msisdn, clock.now());
  try {
    await inviteAgent(agent);
  } catch (error) {
    await sms.giveBack();
    throw error;
  }
  await textInvitation(sms, reseller.reseller_name, agent.id);
  return agent;
}

/** The invitation, in GSM-7: who invites, and the console link that accepts it. */
async function textInvitation(sms: SmsTicket, resellerName: string | undefined, agentId: string) {
  const link = `${config().PUBLIC_BASE_URL.replace(/\/$/, '')}/console#accept=${agentId}`;
  const text = toGsm7(
    `${resellerName ?? 'Un revendeur WiFi'} vous invite a vendre ses codes WiFi. Pour accepter: ${link}`,
  );
  try {
    await sms.send(text);
  } catch (error) {
    // The invitation stands; the reseller may give the link by hand.
    log.error('agent invitation sms not sent', { error: error instanceof Error ? error.name : 'unknown' });
  }
}

/**
 * The number's holder, logged in (a subscriber's token of that very number), accepts its
 * invitation: its account becomes the agent's, and it gets an agent's session token at once.
 * Anyone else, or an invitation accepted or withdrawn already, gets 404.
 */
export async function acceptInvitation(principal: Principal, id: string) {
  const agent = await getAgent(id);
  const msisdn = msisdnOfRef(principal.ref);
  if (agent?.status !== 'invited' || principal.role !== 'subscriber' || agent.msisdn !== msisdn)
    throw notFound('Invitation');
  if ((await acceptAgent(agent, principal.sub, clock.iso())) !== 'accepted') throw notFound('Invitation');
  const state = await sessionStateOf(msisdn);
  // The agent's console session: it works its day without another SMS.
  const login = await openConsoleSession({
    ...sessionClaims({
      sub: principal.sub,
      role: 'agent',
      ref: subscriberRef(msisdn),
      resellerId: agent.reseller_id,
      agentId: agent.id,
      tokenVersion: state?.token_version,
    }),
    msisdn,
  });
  const { status: _invited, ...accepted } = agent;
  return { agent: accepted, ...login };
}

export async function agentsOf(principal: OperatorPrincipal, asked: string | undefined) {
  return { items: await listAgents(resellerInScope(principal, asked)) };
}

export async function changeTerms(
  principal: OperatorPrincipal,
  id: string,
  terms: { name?: string; commission_bp?: number; nas_ids?: string[] },
): Promise<Agent> {
  const agent = await getAgent(id);
  assertManagesAgent(principal, agent);
  await checkNasIds(agent.reseller_id, terms.nas_ids);
  const updated = await updateAgentTerms(id, terms);
  if (!updated) throw notFound('Agent');
  return updated;
}

/** The hotspot a sale is made for: one of the agent's, of its reseller. */
async function saleHotspot(agent: Agent, asked: string | undefined): Promise<string | undefined> {
  const nasId = asked ?? (agent.nas_ids?.length === 1 ? agent.nas_ids[0] : undefined);
  if (nasId === undefined) return undefined;
  if (agent.nas_ids?.length && !agent.nas_ids.includes(nasId)) throw forbidden('Not one of your hotspots');
  if ((await getNas(nasId))?.reseller_id !== agent.reseller_id) throw forbidden('Not one of your hotspots');
  return nasId;
}

const SALE_ATTEMPTS = 40;

/**
 * An agent sells one code: from its stock of that forfait when it holds one, else paid from its
 * float. The conditional transaction of functions/store/agents.ts decides, so parallel sales
 * never take more than was given; a conflict (another sale of the same agent at the same
 * moment) is retried with a fresh read, never counted twice.
 */
export async function sell(
  principal: AgentScopePrincipal,
  agentId: string,
  input: { forfait_id: string; nas_id?: string; send_to?: string },
) {
  const first = await getAgent(agentId);
  assertSeesAgent(principal, first);
  assertIsAgent(principal, first);
  if (first.status === 'invited') throw forbidden('This invitation is not accepted yet');
  // A reseller removed (its last operator account: bin/admin/accounts.ts) has no agents selling for it.
  const reseller = await getReseller(first.reseller_id);
  if (reseller?.removed_at !== undefined) throw forbidden('This reseller no longer sells');
  const buyer =
    input.send_to === undefined
      ? undefined
      : await msisdnOrThrow(input.send_to, 'body.send_to', reseller?.country);
  const nasId = await saleHotspot(first, input.nas_id);
  const forfait = await forfaitForSale(input.forfait_id, {
    resellerId: first.reseller_id,
    ...(nasId ? { nasId } : {}),
  });
  let agent: Agent = first;
  return untilSettled(
    async () => {
      const paidFrom = (agent.stock[forfait.id] ?? 0) > 0 ? 'stock' : 'float';
      const now = clock.now();
      const at = clock.iso(now);
      const price = forfait.price_fcfa;
      // Its clock starts at its first login, as a voucher's; its price is booked now (the cash is
      // in the agent's hand), so its first login books nothing (source `agent`, not `voucher`).
      const access = newAccessCode(
        {
          reseller_id: agent.reseller_id,
          source: 'agent',
          source_id: agent.id,
          forfait_id: forfait.id,
          forfait_name: forfait.name,
          offer: offerOf(forfait),
        },
        at,
        { price_fcfa: price, use_by: useByFrom(now) },
      );
      const code = access.code;
      const sale: AgentSale = {
        agent_id: agent.id,
        reseller_id: agent.reseller_id,
        at,
        code,
        forfait_id: forfait.id,
        forfait_name: forfait.name,
        price_fcfa: price,
        commission_fcfa: commissionOf(price, agent.commission_bp),
        paid_from: paidFrom,
        ...(nasId ? { nas_id: nasId } : {}),
        // Masked as stored: the code was texted already, and the sale is kept for the books (docs/decisions.md).
        ...(buyer ? { buyer_msisdn: maskMsisdn(buyer) } : {}),
      };
      const booked = bookings(agentCashSale(sale), at);
      const outcome = await recordAgentSale(sale, accessCodeCreate(access), booked);
      if (outcome === 'sold') {
        const sms = buyer
          ? await textCode(agent.reseller_id, buyer, code, {
              forfaitName: forfait.name,
              offer: forfait,
              hotspot: reseller?.reseller_name,
            })
          : undefined;
        const after = await getAgent(agent.id);
        return {
          sale: shownSale(sale),
          offer: { duration_hours: forfait.duration_hours, data_limit_mb: forfait.data_limit_mb },
          ...(sms ? { sms } : {}),
          float_fcfa: after?.float_fcfa ?? 0,
          stock_left: after?.stock[forfait.id] ?? 0,
        };
      }
      if (outcome === 'float_exhausted' || outcome === 'stock_exhausted') {
        // The stock ran out between the read and the write: the float may still pay. Read again.
        const fresh = await getAgent(agent.id);
        if (!fresh) throw notFound('Agent');
        if (!covers(fresh, forfait)) throw exhausted(fresh, forfait);
        agent = fresh;
        return undefined;
      }
      // A conflict or a code already taken: read the agent again, and try again.
      agent = (await getAgent(agent.id)) ?? agent;
      return undefined;
    },
    tooManySales,
    SALE_ATTEMPTS,
  );
}

const tooManySales = (): never => {
  throw new AppError('ERR_UNAVAILABLE', 'Too many sales at once: try again', {
    headers: { 'retry-after': '1' },
  });
};

/**
 * The code texted to the buyer, in GSM-7 (one segment: the cheapest SMS, any phone reads it),
 * within the reseller's SMS budgets. The sale stands whatever happens to the SMS (the code is
 * shown on screen; the agent may read it out instead): a budget spent or SNS failing is
 * `sent: false`.
 */
async function textCode(resellerId: string, to: string, code: string, sold: CodeSold) {
  const text = accessCodeText(code, sold);
  const answer = (sent: boolean) => ({ to: maskMsisdn(to), segments: gsm7Segments(text), sent });
  try {
    await (await takeResellerSms(resellerId, to, clock.now())).send(text);
    return answer(true);
  } catch (error) {
    const why = error instanceof AppError ? error.code : error instanceof Error ? error.name : 'unknown';
    log.error('agent sale sms not sent', { error: why });
    return answer(false);
  }
}
