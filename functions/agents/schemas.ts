// The agents' request and answer schemas.

import * as z from 'zod/mini';
import { TopupResponse } from '../billing/topup-schemas.js';
import { csvLang, day, intParam, schema, uuid, withinAQuarter } from '../core/schemas.js';

const msisdn = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.maxLength(32),
    z.meta({
      description:
        "A number of a served country: international (+225 07 12 34 56 78), or as written in the reseller's country (07 12 34 56 78 in Côte d'Ivoire, 77 123 45 67 in Senegal); answered in E.164",
      examples: ['+2250712345678', '07 12 34 56 78'],
    }),
  ),
);
const nasIds = /* @__PURE__ */ schema(() =>
  z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(50)),
);
/**
 * A name shown to people (the console, a ticket, an SMS): no markup (`<`, `>`) and no control or
 * bidirectional formatting character, which could make a name show as another, or run as HTML
 * where someone forgets to escape it.
 */
const displayName = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(80),
    z.refine(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses.
      (s) => !/[<>\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/.test(s),
      'must not contain < or >, nor control or bidirectional formatting characters',
    ),
  ),
);
/** Commission in basis points of each sale's price: 0 to 5000 (50 %). */
const commissionBp = /* @__PURE__ */ schema(() => z.int().check(z.gte(0), z.lte(5000)));

export const AgentIdParams = /* @__PURE__ */ schema(() => z.object({ id: uuid() }));

export const AgentCreateBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    msisdn,
    /** Required of an admin; a reseller's own when absent. */
    reseller_id: z.optional(uuid()),
    name: z.optional(displayName),
    commission_bp: commissionBp,
    nas_ids: z.optional(nasIds),
  }),
);

export const AgentTermsBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    name: z.optional(displayName),
    commission_bp: z.optional(commissionBp),
    nas_ids: z.optional(nasIds),
  }),
);

/** What a handover carries: float in FCFA, or a number of codes of a forfait, one of the two. */
const handed = () => ({
  float_fcfa: z.optional(z.int().check(z.gte(1), z.lte(10_000_000))),
  forfait_id: z.optional(uuid()),
  count: z.optional(z.int().check(z.gte(1), z.lte(10_000))),
});
type Handed = {
  float_fcfa?: number | undefined;
  forfait_id?: string | undefined;
  count?: number | undefined;
};
const floatOrCodes = () =>
  z.refine<Handed>(
    (b) =>
      b.float_fcfa !== undefined
        ? b.forfait_id === undefined && b.count === undefined
        : b.forfait_id !== undefined && b.count !== undefined,
    'give float_fcfa, or forfait_id with count',
  );

/** Float in FCFA, or a number of codes of a forfait: one of the two. */
export const AgentAllotBody = /* @__PURE__ */ schema(() => z.strictObject(handed()).check(floatOrCodes()));

/** Float, or codes of a forfait, moved to another agent of the reseller (`to_agent_id`) or back to it. */
export const AgentMoveBody = /* @__PURE__ */ schema(() =>
  z.strictObject({ to_agent_id: z.optional(uuid()), ...handed() }).check(floatOrCodes()),
);
export const HandoverParams = /* @__PURE__ */ schema(() => z.object({ id: uuid(), handover_id: uuid() }));
export const AgentSaleParams = /* @__PURE__ */ schema(() =>
  z.object({ id: uuid(), code: z.string().check(z.regex(/^[A-Z0-9]{4,32}$/, 'must be an access code')) }),
);

export const AgentSaleBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    forfait_id: uuid(),
    nas_id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /** The buyer's number: the code is texted to it. */
    send_to: z.optional(msisdn),
  }),
);

/** A top-up: the guest's code and the forfait added to it. */
export const AgentTopupBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    code: z.string().check(z.regex(/^[A-Za-z0-9 -]{4,32}$/, 'must be an access code')),
    forfait_id: uuid(),
  }),
);

export const AgentCashBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    amount_fcfa: z.int().check(z.gte(1), z.lte(100_000_000)),
  }),
);

export const AgentsQuery = /* @__PURE__ */ schema(() => z.strictObject({ reseller_id: z.optional(uuid()) }));

export const AgentSalesQuery = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      from: day(),
      to: day(),
      limit: z._default(intParam(1, 500), 100),
      /** A code (or part of it), or the buyer's number (its last four digits are matched). */
      q: z.optional(z.string().check(z.minLength(1), z.maxLength(32))),
    })
    .check(withinAQuarter),
);
export const AgentExportQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ from: day(), to: day(), lang: csvLang() }).check(withinAQuarter),
);

export const AgentSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    reseller_id: z.string(),
    msisdn: z.string(),
    name: z.optional(z.string()),
    nas_ids: z.optional(z.array(z.string())),
    commission_bp: z.int(),
    float_fcfa: z.int(),
    /** Codes it may still issue, per forfait id. */
    stock: z.record(z.string(), z.int()),
    sold_fcfa: z.int(),
    commission_fcfa: z.int(),
    sales_count: z.int(),
    /** Cash it owes its reseller: sold - commission - cash received. */
    owed_fcfa: z.int(),
    cash_received_fcfa: z.int(),
    created_at: z.string(),
    /** Invited, not yet accepted by the number's holder: it sells nothing yet. */
    status: z.optional(z.literal('invited')),
    accepted_at: z.optional(z.string()),
  }),
);
/** A handover as its history shows it: what it did to the agent, and until when it may be undone. */
const HandoverSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    at: z.string(),
    kind: z.enum(['float', 'stock', 'cash', 'move']),
    /** Float given (positive) or moved away (negative). */
    float_fcfa: z.optional(z.int()),
    forfait_id: z.optional(z.string()),
    /** Codes given (positive) or moved away (negative). */
    count: z.optional(z.int()),
    cash_fcfa: z.optional(z.int()),
    /** A move to this agent; none on a move: back to the reseller. */
    to_agent_id: z.optional(z.string()),
    from_agent_id: z.optional(z.string()),
    by: z.string(),
    undone_at: z.optional(z.string()),
    undo_until: z.string(),
  }),
);
/** The agent after a handover, and the handover (to undo it). */
export const HandoverAnswer = /* @__PURE__ */ schema(() =>
  z.extend(AgentSchema, { handover: HandoverSchema }),
);
export const HandoversResponse = /* @__PURE__ */ schema(() => z.object({ items: z.array(HandoverSchema) }));
/** An accepted invitation: the agent, and the agent's session token for the number that accepted. */
export const AgentAcceptResponse = /* @__PURE__ */ schema(() =>
  z.object({ agent: AgentSchema, session_token: z.string(), refresh_token: z.string(), expires_in: z.int() }),
);
export const AgentsResponse = /* @__PURE__ */ schema(() => z.object({ items: z.array(AgentSchema) }));

const Period = /* @__PURE__ */ schema(() =>
  z.object({
    period: z.string(),
    sold_fcfa: z.int(),
    commission_fcfa: z.int(),
    /** sold - commission: what these sales owe the reseller. */
    due_fcfa: z.int(),
    sales_count: z.int(),
  }),
);
export const AgentStatementResponse = /* @__PURE__ */ schema(() =>
  z.object({
    agent: AgentSchema,
    today: Period,
    month: Period,
    cash: z.array(z.object({ at: z.string(), amount_fcfa: z.int() })),
  }),
);

export const AgentSaleSchema = /* @__PURE__ */ schema(() =>
  z.object({
    at: z.string(),
    code: z.string(),
    forfait_id: z.string(),
    forfait_name: z.string(),
    price_fcfa: z.int(),
    commission_fcfa: z.int(),
    paid_from: z.enum(['float', 'stock']),
    nas_id: z.optional(z.string()),
    /** The buyer's number, masked. */
    buyer_msisdn: z.optional(z.string()),
    /** A top-up of the guest's code `code`, not a new code. */
    topup: z.optional(z.literal(true)),
    /** Undone within its minutes (its code never used): the money back, the code revoked. */
    undone_at: z.optional(z.string()),
  }),
);
export const AgentSalesResponse = /* @__PURE__ */ schema(() => z.object({ items: z.array(AgentSaleSchema) }));
export const AgentSaleResponse = /* @__PURE__ */ schema(() =>
  z.object({
    sale: AgentSaleSchema,
    /** What the code gives, for the ticket. */
    offer: z.object({ duration_hours: z.int(), data_limit_mb: z.int() }),
    sms: z.optional(z.object({ to: z.string(), segments: z.int(), sent: z.boolean() })),
    float_fcfa: z.int(),
    stock_left: z.int(),
  }),
);
export const AgentSaleUndoResponse = /* @__PURE__ */ schema(() =>
  z.object({ sale: AgentSaleSchema, float_fcfa: z.int(), stock_left: z.int() }),
);
export const AgentTopupResponse = /* @__PURE__ */ schema(() =>
  z.object({ sale: AgentSaleSchema, topup: TopupResponse, float_fcfa: z.int(), stock_left: z.int() }),
);
