import { Branding } from './branding.js';
import { cancelled, type Expr, entity, exists, transact } from './entity.js';
import { type GatewayRule, rulesCreate, rulesDelete } from './gateway-rules.js';
import { Nas } from './nas.js';
import { Reseller } from './resellers.js';

export { getReseller, type ResellerProfile, recordResellerName } from './resellers.js';

/**
 * VLAN allocations. Ids come from one counter item: `next` (the next never-used id) and `free`
 * (a number set of released ids, reused first). An allocation takes its id and writes
 * everything that goes with it in ONE transaction, conditioned on the counter as read.
 */
export interface Allocation {
  vlan_id: number;
  reseller_id: string;
  reseller_name: string;
  subnet: string;
  nas_id: string;
  ssid: string;
  site_count: number;
  created_at: string;
}

const pad = (n: number) => String(n).padStart(5, '0');

export const Vlan = entity<Allocation & { slug: string }>()({
  name: 'vlan',
  key: (a: Pick<Allocation, 'vlan_id'>) => ({ pk: `VLAN#${a.vlan_id}`, sk: 'ALLOCATION' }),
  indexes: {
    /** Every allocation, in id order. */
    all: {
      gsi: 'gsi1',
      composite: ['vlan_id'],
      pk: (_all: unknown) => 'VLANS',
      sk: (a: Allocation) => pad(a.vlan_id),
    },
    /** A reseller's own. */
    byReseller: {
      gsi: 'gsi2',
      composite: ['reseller_id', 'vlan_id'],
      pk: (a: Pick<Allocation, 'reseller_id'>) => `RESELLER#${a.reseller_id}#VLAN`,
      sk: (a: Allocation) => pad(a.vlan_id),
    },
  },
});

/** The id counter: `next` never-used id, `free` the released ids (a number set). */
const VlanCounter = entity<{ next?: number; free?: Set<number> }>()({
  name: 'vlan_counter',
  key: (_only: unknown) => ({ pk: 'VLAN#COUNTER', sk: 'COUNTER' }),
});

export interface Pool {
  /** The next never-used id; undefined before the first allocation. */
  next: number | undefined;
  /** Released ids, lowest first. */
  free: number[];
}

// Access: GetItem pk=VLAN#COUNTER (strongly consistent: the transaction is conditioned on it).
export async function readPool(): Promise<Pool> {
  const counter = await VlanCounter.get({}, { consistent: true });
  return {
    next: counter?.next,
    free: counter?.free ? [...counter.free].sort((a, b) => a - b) : [],
  };
}

/** `race`: the counter moved since it was read (try again). `duplicate`: NAS id or reseller taken. */
export type AllocateResult = 'ok' | 'race' | 'duplicate';

type Take =
  /** Reuse a released id: remove it from `free`, which must still hold it. */
  | { kind: 'free' }
  /** Advance `next` from the value read; `freeWasEmpty`: and no id was released meanwhile. */
  | { kind: 'counter'; expectedNext: number | undefined; freeWasEmpty: boolean };

function counterUpdate(vlanId: number, take: Take): { update: Expr; condition: Expr } {
  if (take.kind === 'free') {
    return {
      update: {
        expression: 'DELETE #free :id',
        names: { '#free': 'free' },
        values: { ':id': new Set([vlanId]) },
      },
      condition: { expression: 'contains(#free, :v)', values: { ':v': vlanId } },
    };
  }
  const expected: Expr =
    take.expectedNext === undefined
      ? { expression: 'attribute_not_exists(#next)', names: { '#next': 'next' } }
      : {
          expression: '#next = :expected',
          names: { '#next': 'next' },
          values: { ':expected': take.expectedNext },
        };
  return {
    update: {
      expression: 'SET #next = :after, entity = :e',
      names: { '#next': 'next' },
      values: { ':after': vlanId + 1, ':e': VlanCounter.name },
    },
    // Released ids go first: an id released since the read sends this attempt round again.
    condition: take.freeWasEmpty
      ? {
          ...expected,
          expression: `${expected.expression} AND attribute_not_exists(#free)`,
          names: { ...expected.names, '#free': 'free' },
        }
      : expected,
  };
}

/**
 * The allocation transaction: take the id (remove it from `free`, or advance `next` from the
 * value read), claim the NAS id, write the allocation, mark the reseller as holding it, and
 * create the VLAN's default gateway rules. All or nothing.
 */
// Access: TransactWriteItems [Update VLAN#COUNTER (condition on next/free as read), Put VLAN#<id> (not exists),
// Put NAS#<nas_id> (not exists), Update RESELLER#<id>/PROFILE (no vlan_id yet), Put 3 x VLAN#<id>#RULES (not exists)].
export async function allocateTx(input: {
  allocation: Allocation;
  slug: string;
  take: Take;
  /** The VLAN's first firewall rules (network/default-rules.ts). */
  rules: GatewayRule[];
}): Promise<AllocateResult> {
  const a = input.allocation;
  const counter = counterUpdate(a.vlan_id, input.take);
  try {
    await transact({
      counter: VlanCounter.tx.update({}, counter.update, counter.condition),
      allocation: Vlan.tx.create({ ...a, slug: input.slug }),
      nas: Nas.tx.create({
        nas_id: a.nas_id,
        reseller_id: a.reseller_id,
        reseller_name: a.reseller_name,
        vlan_id: a.vlan_id,
        kind: 'vlan',
      }),
      reseller: Reseller.tx.update(
        a,
        {
          expression:
            'SET reseller_id = :rid, reseller_name = :n, site_count = :sc, vlan_id = :v, nas_id = :nas, slug = :slug, entity = :e',
          values: {
            ':rid': a.reseller_id,
            ':n': a.reseller_name,
            ':sc': a.site_count,
            ':v': a.vlan_id,
            ':nas': a.nas_id,
            ':slug': input.slug,
            ':e': Reseller.name,
          },
        },
        { expression: 'attribute_not_exists(vlan_id)' },
      ),
      ...rulesCreate(input.rules),
    });
    return 'ok';
  } catch (error) {
    const c = cancelled<string>(error);
    if (!c) throw error;
    // The NAS id or the reseller is taken: final, whatever else failed.
    if (c.failed('nas') || c.failed('reseller')) return 'duplicate';
    // The counter moved, or another transaction held one of the items: read again and retry.
    if (c.failed('counter') || c.conflict) return 'race';
    // The pool offered an id whose allocation or rules exist: the data is inconsistent, do not loop.
    throw error;
  }
}

const publicAllocation = ({ slug, ...a }: Allocation & { slug?: string }): Allocation => a;

// Access: GetItem pk=VLAN#<id>, sk=ALLOCATION (strongly consistent).
export async function getAllocation(vlanId: number): Promise<Allocation | undefined> {
  const a = await Vlan.get({ vlan_id: vlanId }, { consistent: true });
  return a && publicAllocation(a);
}

/** All allocations (admin) or one reseller's, in VLAN id order. At most the pool: read whole. */
// Access: Query all (gsi1) gsi1pk=VLANS, or Query byReseller (gsi2) gsi2pk=RESELLER#<id>#VLAN (one reseller's).
export async function listAllocations(resellerId?: string): Promise<Allocation[]> {
  const items = resellerId
    ? await Vlan.queryIndexAll('byReseller', { reseller_id: resellerId })
    : await Vlan.queryIndexAll('all', {});
  return items.map(publicAllocation);
}

/**
 * The last step of a release (its sites are gone already), in one transaction: the allocation,
 * its NAS id, that hotspot's branding and the VLAN's rules go; the reseller keeps its name and
 * site count but no VLAN; the id joins `free`, to be reused before the counter advances.
 * False when the VLAN was not allocated (any more).
 */
// Access: TransactWriteItems [Delete VLAN#<id> (exists), Delete NAS#<nas_id>, Delete BRANDING#<nas_id>,
// Delete the default VLAN#<id>#RULES, Update RESELLER#<id>/PROFILE REMOVE vlan_id (vlan_id = :v), Update VLAN#COUNTER ADD free].
export async function releaseTx(
  a: Allocation,
  rules: Pick<GatewayRule, 'vlan' | 'order'>[],
): Promise<boolean> {
  try {
    await transact({
      allocation: Vlan.tx.delete(a, exists),
      nas: Nas.tx.delete(a),
      branding: Branding.tx.delete(a),
      ...rulesDelete(rules),
      reseller: Reseller.tx.update(
        a,
        { expression: 'REMOVE vlan_id, nas_id, slug, releasing' },
        { expression: 'vlan_id = :v', values: { ':v': a.vlan_id } },
      ),
      counter: VlanCounter.tx.update(
        {},
        { expression: 'ADD #free :id', names: { '#free': 'free' }, values: { ':id': new Set([a.vlan_id]) } },
      ),
    });
    return true;
  } catch (error) {
    const c = cancelled<string>(error);
    // The allocation, or the reseller's hold on it, is gone: released already.
    if (c && (c.failed('allocation') || c.failed('reseller'))) return false;
    throw error;
  }
}
