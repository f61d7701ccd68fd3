// Who a caller is once its token was verified: the roles, the principals by auth level, a session's claims.

/**
 * Who a caller is, as every area sees it once a session token has been verified. Signing and
 * verifying the tokens is auth's job (functions/auth/tokens.ts); these types and helpers carry no
 * JWT library and read no store, so the store and any handler can name a role or a principal.
 */
export const ROLES = ['subscriber', 'reseller', 'admin', 'agent'] as const;
export type Role = (typeof ROLES)[number];

interface Claims {
  /** The account's UUID (subscriber id for subscribers). */
  sub: string;
  /** `SUB-<digits>` of the account's MSISDN. */
  ref: string;
  /**
   * The account's token version when the token was signed (claim `tv`; absent: 0). Revoking an
   * account's tokens moves its version on (functions/store/accounts.ts).
   */
  tokenVersion?: number;
  /**
   * The console session the token was issued for (claim `sid`; functions/auth/console-sessions.ts):
   * its logout ends this token and leaves the account's other sessions. Absent on a subscriber's.
   */
  sid?: string;
}

/** What a session token says of its holder, by role: only a reseller acts for a reseller. */
export type SessionClaims =
  | (Claims & { role: 'subscriber' })
  | (Claims & { role: 'reseller'; resellerId: string })
  | (Claims & { role: 'admin' })
  /** A reseller's agent (a shop selling codes for cash): acts for its reseller's sales only. */
  | (Claims & { role: 'agent'; resellerId: string; agentId: string });

/** Who is calling, as proven by a verified session token (`exp`: its expiry, epoch seconds). */
export type Principal = SessionClaims & { exp: number };
type ResellerPrincipal = Extract<Principal, { role: 'reseller' }>;
export type AdminPrincipal = Extract<Principal, { role: 'admin' }>;
export type AgentPrincipal = Extract<Principal, { role: 'agent' }>;
/** The callers of `reseller` routes: the owning reseller or an admin. */
export type OperatorPrincipal = ResellerPrincipal | AdminPrincipal;
/** The callers of `agent` routes: the agent itself, its reseller or an admin. */
export type AgentScopePrincipal = AgentPrincipal | OperatorPrincipal;

/**
 * An in-country edge, as its verified token says (functions/edge/edge-auth.ts): it speaks for
 * the routers of these resellers only.
 */
export interface EdgePrincipal {
  role: 'edge';
  edgeId: string;
  resellerIds: readonly string[];
}

/** The claims of an account as stored (role, and the reseller it acts for when it is one). */
export function sessionClaims(account: {
  sub: string;
  ref: string;
  role: Role;
  resellerId?: string;
  agentId?: string;
  tokenVersion?: number;
}): SessionClaims {
  const { sub, ref, role, resellerId, agentId, tokenVersion } = account;
  const version = tokenVersion ? { tokenVersion } : {};
  if (role === 'agent') {
    if (!resellerId || !agentId) throw new Error('an agent account has no reseller_id or agent_id');
    return { sub, ref, role, resellerId, agentId, ...version };
  }
  if (role !== 'reseller') return { sub, ref, role, ...version };
  if (!resellerId) throw new Error('a reseller account has no reseller_id');
  return { sub, ref, role, resellerId, ...version };
}

/** The E.164 number of a `SUB-<digits>` reference (the account's key). */
export const msisdnOfRef = (ref: string): string => `+${ref.replace(/^SUB-/, '')}`;
