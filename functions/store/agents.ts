// A reseller's agents: their record, terms, sales, periods and cash.

import { allOf, cancelled, entity, exists, type TxItem, transact } from './entity.js';

/**
 * A reseller's agent: a phone number (a shop, a cashier) that sells the reseller's codes for
 * cash. It holds a credit float in FCFA and/or a stock of codes per forfait, both given by its
 * reseller; each sale takes the price from the float (or one code from the stock) in the same
 * conditional transaction that records it, so an agent never sells beyond what it was given.
 *
 * Money kept on the agent, all whole FCFA:
 * - `sold_fcfa`: every sale's price (what the buyers paid the agent);
 * - `commission_fcfa`: the agent's share of those sales (commission_bp of each price, rounded);
 * - `owed_fcfa`: cash the agent still owes its reseller = sold - commission - cash received.
 */
export interface Agent {
  id: string;
  reseller_id: string;
  msisdn: string;
  name?: string;
  /** The hotspots (NAS ids) it sells for; absent: every hotspot of its reseller. */
  nas_ids?: string[];
  /** Commission in basis points of each sale's price (1000 = 10 %). */
  commission_bp: number;
  float_fcfa: number;
  /** Codes it may still issue, per forfait id. */
  stock: Record<string, number>;
  sold_fcfa: number;
  commission_fcfa: number;
  sales_count: number;
  owed_fcfa: number;
  cash_received_fcfa: number;
  created_at: string;
  /**
   * `invited`: added by its reseller, not yet accepted by the number's holder (it sells nothing,
   * and its number's account is untouched until it accepts). Absent: accepted (or added before
   * invitations).
   */
  status?: 'invited';
  accepted_at?: string;
}

/** As stored: the stock is flat `s:<forfait_id>` attributes, so that an ADD creates one. */
type StoredAgent = Omit<Agent, 'stock'> & Record<string, unknown>;

export const STOCK = 's:';

export const AgentEntity = entity<StoredAgent>('agent')({
  key: (a: Pick<Agent, 'id'>) => ({ pk: `AGENT#${a.id}`, sk: 'AGENT' }),
  indexes: {
    /** A reseller's agents, by id. */
    byReseller: { gsi: 'gsi1', pk: 'RESELLER#{reseller_id}#AGENTS', sk: '{id}' },
  },
});

/** One sale of an agent, under the agent's partition, by time. */
export interface AgentSale {
  agent_id: string;
  reseller_id: string;
  at: string;
  code: string;
  forfait_id: string;
  forfait_name: string;
  price_fcfa: number;
  commission_fcfa: number;
  /** Where the code came from: the float paid for it, or one code of the stock. */
  paid_from: 'float' | 'stock';
  nas_id?: string;
  /** The buyer's number when the code was texted. */
  buyer_msisdn?: string;
  /** A top-up of the guest's code `code` (functions/agents/agent-topup.ts), not a new code. */
  topup?: true;
  /**
   * Which top-up of the code it is (1 for its first): a code is sold once but topped up many
   * times, and its top-ups' numbers are unique (each is written with the code as read), so two
   * top-ups of one code within a millisecond are two sales, not one refused as taken.
   */
  topup_n?: number;
  /** When the sale was undone (within minutes, the code never used): its money back, its code revoked. */
  undone_at?: string;
}

const SaleEntity = entity<AgentSale>('agent_sale')({
  key: (s: Pick<AgentSale, 'agent_id' | 'at' | 'code' | 'topup_n'>) => ({
    pk: `AGENT#${s.agent_id}`,
    sk: `SALE#${s.at}#${s.code}${s.topup_n ? `#${s.topup_n}` : ''}`,
  }),
});

/** An agent's sales of one day (YYYY-MM-DD) or month (YYYY-MM), counted with each sale. */
export interface AgentPeriod {
  agent_id: string;
  period: string;
  sold_fcfa: number;
  commission_fcfa: number;
  sales_count: number;
}

const PeriodEntity = entity<AgentPeriod>('agent_period')({
  key: (p: Pick<AgentPeriod, 'agent_id' | 'period'>) => ({
    pk: `AGENT#${p.agent_id}`,
    sk: `PERIOD#${p.period}`,
  }),
});

/** Cash an agent handed to its reseller, as the reseller recorded it. */
export interface AgentCash {
  agent_id: string;
  reseller_id: string;
  id: string;
  at: string;
  amount_fcfa: number;
  /** The account (reseller or admin) that recorded it. */
  recorded_by: string;
}

export const CashEntity = entity<AgentCash>('agent_cash')({
  key: (c: Pick<AgentCash, 'agent_id' | 'at' | 'id'>) => ({
    pk: `AGENT#${c.agent_id}`,
    sk: `CASH#${c.at}#${c.id}`,
  }),
});

function parseAgent(s: StoredAgent): Agent {
  const stock: Record<string, number> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith(STOCK)) stock[k.slice(STOCK.length)] = Number(v);
    else rest[k] = v;
  }
  return { ...(rest as Omit<Agent, 'stock'>), stock };
}

/** An agent's money at creation (its stock, `{}`, is its own object): nothing held, sold, owed or received yet. */
export const NEW_AGENT_BOOKS = {
  float_fcfa: 0,
  sold_fcfa: 0,
  commission_fcfa: 0,
  sales_count: 0,
  owed_fcfa: 0,
  cash_received_fcfa: 0,
} as const satisfies Partial<Agent>;

// Access: GetItem pk=AGENT#<id>, sk=AGENT (strongly consistent: a sale or a statement reads it).
export async function getAgent(id: string): Promise<Agent | undefined> {
  const a = await AgentEntity.get({ id }, { consistent: true });
  return a && parseAgent(a);
}

// Access: Query byReseller (gsi1) gsi1pk=RESELLER#<reseller_id>#AGENTS.
export async function listAgents(resellerId: string): Promise<Agent[]> {
  const items = await AgentEntity.queryIndexAll('byReseller', { reseller_id: resellerId });
  return items.map(parseAgent);
}

/** Commission rate, name or hotspots changed; the money attributes are not touched. */
// Access: UpdateItem pk=AGENT#<id> SET commission_bp, name, nas_ids (condition: exists).
export async function updateAgentTerms(
  id: string,
  terms: { commission_bp?: number; name?: string; nas_ids?: string[] },
): Promise<Agent | undefined> {
  const set: Partial<StoredAgent> = {};
  if (terms.commission_bp !== undefined) set.commission_bp = terms.commission_bp;
  if (terms.name !== undefined) set.name = terms.name;
  if (terms.nas_ids !== undefined) set.nas_ids = terms.nas_ids;
  const a = await AgentEntity.updateReturning({ id }, { set }, exists);
  return a && parseAgent(a);
}

export type SaleOutcome = 'sold' | 'float_exhausted' | 'stock_exhausted' | 'code_taken' | 'conflict' | 'gone';

/**
 * Records one sale in one transaction: the agent's float (or stock) taken under the condition
 * that it covers the sale, the new access code (or a top-up's new limits of a guest's code), the sale, the agent's day and month, and the
 * sale's bookings (functions/billing/ledger.ts: the same books a mobile-money sale adds to).
 * Either all of it is written or none.
 */
// Access: TransactWriteItems [Update AGENT#<id> (float_fcfa >= price | s:<forfait> >= 1) ADD sold/commission/owed, Put CODE#<code> attribute_not_exists(pk) (a sale) or Update CODE#<code> devices_version = as read (a top-up), Put AGENT#<id>/SALE#<at>#<code> attribute_not_exists(pk), Update AGENT#<id>/PERIOD#<day> ADD, Update AGENT#<id>/PERIOD#<month> ADD, the ledger's bookings].
export async function recordAgentSale(
  sale: AgentSale,
  /** The code's write: a new code's Put (`accessCodeCreate`), or a top-up's (`accessCodeExtend`). */
  code: TxItem,
  bookings: Record<string, TxItem>,
): Promise<SaleOutcome> {
  const owed = sale.price_fcfa - sale.commission_fcfa;
  const [paidFrom, price] =
    sale.paid_from === 'float'
      ? (['float_fcfa', sale.price_fcfa] as const)
      : ([`${STOCK}${sale.forfait_id}` as const, 1] as const);
  const covers = allOf(exists, AgentEntity.where.compare(paidFrom, '>=', price));
  const period = (p: string): TxItem =>
    PeriodEntity.tx.upsert(
      { agent_id: sale.agent_id, period: p },
      {
        set: { agent_id: sale.agent_id, period: p },
        add: { sold_fcfa: sale.price_fcfa, commission_fcfa: sale.commission_fcfa, sales_count: 1 },
      },
    );
  try {
    await transact({
      agent: AgentEntity.tx.update(
        { id: sale.agent_id },
        {
          add: {
            [paidFrom]: -price,
            sold_fcfa: sale.price_fcfa,
            commission_fcfa: sale.commission_fcfa,
            owed_fcfa: owed,
            sales_count: 1,
          },
        },
        covers,
      ),
      code,
      sale: SaleEntity.tx.create(sale),
      day: period(sale.at.slice(0, 10)),
      month: period(sale.at.slice(0, 7)),
      ...bookings,
    });
    return 'sold';
  } catch (error) {
    const c = cancelled<'agent' | 'code' | 'sale'>(error);
    if (!c) throw error;
    if (c.failed('agent')) return sale.paid_from === 'float' ? 'float_exhausted' : 'stock_exhausted';
    if (c.failed('code') || c.failed('sale')) return 'code_taken';
    if (c.conflict) return 'conflict';
    throw error;
  }
}

export type SaleUndoOutcome = 'undone' | 'late' | 'code_used' | 'settled' | 'conflict';

/**
 * Undoes a sale of the last minutes (made at or after `since`) in one transaction: the sale
 * marked undone (once: a second undo, parallel or not, finds it so), the agent's float or code
 * of stock given back and its sold, commission, owed and count taken back, its day and month
 * too, the code revoked while never used (`code`), and the ledger's reversal of the sale
 * (`bookings`). Either all of it is written or none. `settled`: the agent has handed over the
 * cash of it already (it owes less than the sale), the reseller's to sort out.
 */
// Access: TransactWriteItems [Update AGENT#<id>/SALE#<at>#<code> SET undone_at (condition: exists, not undone, at >= since), Update AGENT#<id> ADD float|s:<forfait>, -sold/-commission/-owed/-count (condition: owed_fcfa >= owed), Update AGENT#<id>/PERIOD#<day>, PERIOD#<month> ADD -, Update CODE#<code> SET revoked_at (condition: never started, not revoked), the ledger's reversal].
export async function undoAgentSale(
  sale: AgentSale,
  at: { nowIso: string; since: string },
  code: TxItem,
  bookings: Record<string, TxItem>,
): Promise<SaleUndoOutcome> {
  const owed = sale.price_fcfa - sale.commission_fcfa;
  const back =
    sale.paid_from === 'float'
      ? { expression: 'ADD float_fcfa :back', names: undefined, values: { ':back': sale.price_fcfa } }
      : {
          expression: 'ADD #stock :back',
          names: { '#stock': `${STOCK}${sale.forfait_id}` },
          values: { ':back': 1 },
        };
  const period = (p: string): TxItem =>
    PeriodEntity.tx.update(
      { agent_id: sale.agent_id, period: p },
      { add: { sold_fcfa: -sale.price_fcfa, commission_fcfa: -sale.commission_fcfa, sales_count: -1 } },
      exists,
    );
  try {
    await transact({
      sale: SaleEntity.tx.update(
        sale,
        { set: { undone_at: at.nowIso } },
        {
          expression: 'attribute_exists(pk) AND attribute_not_exists(undone_at) AND #at >= :since',
          names: { '#at': 'at' },
          values: { ':since': at.since },
        },
      ),
      agent: AgentEntity.tx.update(
        { id: sale.agent_id },
        {
          expression: `${back.expression}, sold_fcfa :minusPrice, commission_fcfa :minusComm, owed_fcfa :minusOwed, sales_count :minusOne`,
          names: back.names,
          values: {
            ...back.values,
            ':minusPrice': -sale.price_fcfa,
            ':minusComm': -sale.commission_fcfa,
            ':minusOwed': -owed,
            ':minusOne': -1,
          },
        },
        { expression: 'attribute_exists(pk) AND owed_fcfa >= :owed', values: { ':owed': owed } },
      ),
      day: period(sale.at.slice(0, 10)),
      month: period(sale.at.slice(0, 7)),
      code,
      ...bookings,
    });
    return 'undone';
  } catch (error) {
    const c = cancelled<'sale' | 'agent' | 'code'>(error);
    if (!c) throw error;
    if (c.failed('sale')) return 'late';
    if (c.failed('code')) return 'code_used';
    if (c.failed('agent')) return 'settled';
    if (c.conflict) return 'conflict';
    throw error;
  }
}

/** An agent's day or month (zeros when it sold nothing then). */
// Access: GetItem pk=AGENT#<id>, sk=PERIOD#<YYYY-MM-DD | YYYY-MM>.
export async function agentPeriod(agentId: string, period: string): Promise<AgentPeriod> {
  const p = await PeriodEntity.get({ agent_id: agentId, period });
  return {
    agent_id: agentId,
    period,
    sold_fcfa: p?.sold_fcfa ?? 0,
    commission_fcfa: p?.commission_fcfa ?? 0,
    sales_count: p?.sales_count ?? 0,
  };
}

/** An agent's sales between two ISO instants (inclusive), newest first, at most `limit`. */
// Access: Query pk=AGENT#<id> AND sk BETWEEN SALE#<from># AND SALE#<to>#~, newest first.
export async function agentSales(
  agentId: string,
  from: string,
  to: string,
  limit?: number,
): Promise<AgentSale[]> {
  const low = SaleEntity.key({ agent_id: agentId, at: from, code: '' });
  const high = SaleEntity.key({ agent_id: agentId, at: to, code: '~' });
  const spec = { pk: low.pk, sk: { between: [low.sk, high.sk] as [string, string] }, forward: false };
  if (limit) return (await SaleEntity.query({ ...spec, limit })).items;
  return SaleEntity.queryAll(spec);
}

/** The cash an agent handed over, newest first. */
// Access: Query pk=AGENT#<id> AND begins_with(sk, CASH#), newest first.
export async function agentCash(agentId: string, limit = 50): Promise<AgentCash[]> {
  const { pk, sk } = CashEntity.key({ agent_id: agentId, at: '', id: '' });
  // The key of an empty instant and id is `CASH##`: its first five characters prefix every one.
  return (await CashEntity.query({ pk, sk: { beginsWith: sk.slice(0, 5) }, forward: false, limit })).items;
}
