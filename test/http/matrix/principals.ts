import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { NEW_AGENT_BOOKS } from '../../../functions/store/agents.js';
import { recordReseller } from '../../../functions/store/resellers.js';
import { acceptedAgent } from '../../support/agents.js';
import { newMsisdn, tokenFor } from '../../support/http.js';

/** An agent of a reseller, as `POST /agents` leaves it (no float, no stock, 10 % commission). */
async function givenAgent(resellerId: string): Promise<string> {
  await recordReseller({ resellerId });
  const id = randomUUID();
  const now = new Date().toISOString();
  await acceptedAgent({
    id,
    reseller_id: resellerId,
    msisdn: newMsisdn(),
    commission_bp: 1000,
    ...NEW_AGENT_BOOKS,
    stock: {},
    created_at: now,
  });
  return id;
}

export const PRINCIPALS = [
  'none',
  'expired',
  'forged',
  'subscriber',
  'otherReseller',
  'owner',
  'admin',
  'agent',
  'otherAgent',
] as const;
export type Who = (typeof PRINCIPALS)[number];
/** The owning reseller's agent (`cast.ownerAgentId`), and another agent of the same reseller. */
export type AgentWho = 'agent' | 'otherAgent';

/** The callers of the matrix: a reseller that owns the fixtures, another one, and the rest. */
export interface Cast {
  ownerResellerId: string;
  otherResellerId: string;
  subscriberId: string;
  /** An agent of the owning reseller, with its token (`agent`); `otherAgent` is a second one. */
  ownerAgentId: string;
  otherAgentId: string;
  tokens: Record<Who, string | undefined>;
}

async function signed(key: string, expSecondsFromNow: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'admin', ref: 'SUB-1' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('hotspot-platform')
    .setAudience('hotspot-api')
    .setSubject(randomUUID())
    .setIssuedAt(now - 1000)
    .setExpirationTime(now + expSecondsFromNow)
    .sign(new TextEncoder().encode(key));
}

export async function makeCast(): Promise<Cast> {
  const ownerResellerId = randomUUID();
  const otherResellerId = randomUUID();
  const subscriberId = randomUUID();
  const ownerAgentId = await givenAgent(ownerResellerId);
  const otherAgentId = await givenAgent(ownerResellerId);
  return {
    ownerResellerId,
    otherResellerId,
    subscriberId,
    ownerAgentId,
    otherAgentId,
    tokens: {
      none: undefined,
      // An admin token, well signed, that expired a minute ago.
      expired: await signed(process.env.JWT_SECRET as string, -60),
      // An admin token signed with another key.
      forged: await signed('an-attacker-key-of-the-same-length-000', 600),
      subscriber: await tokenFor('subscriber', { sub: subscriberId }),
      otherReseller: await tokenFor('reseller', { resellerId: otherResellerId }),
      owner: await tokenFor('reseller', { resellerId: ownerResellerId }),
      admin: await tokenFor('admin'),
      agent: await tokenFor('agent', { resellerId: ownerResellerId, agentId: ownerAgentId }),
      otherAgent: await tokenFor('agent', { resellerId: ownerResellerId, agentId: otherAgentId }),
    },
  };
}
