// VLAN allocations: the taken ids read by stripes, allocated and released in transactions.

import { Branding } from './branding.js';
import { batchGet, cancelled, entity, exists, transact } from './entity.js';
import { type GatewayRule, rulesCreate, rulesDelete } from './gateway-rules.js';
import { Nas } from './nas.js';
import { Reseller } from './resellers.js';

/**
 * VLAN allocations. Which ids are taken is kept on a few stripe items (`VLAN#POOL#<s>`, s = id
 * mod `VLAN_STRIPES`), each a number set of the taken ids of its stripe: an allocation adds its id
 * to its stripe (`NOT contains`) in ONE transaction with everything that goes with it, a release
 * removes it. There is no single item every allocation writes (before, one counter item sat in
 * every allocation's transaction, so parallel allocations lost race after race on it): two
 * allocations meet only when they pick ids of the same stripe at the same moment. Consecutive
 * ids fall in different stripes, so even allocations that take the lowest free ids spread over
 * the stripes. All stripes are read in one strongly consistent BatchGetItem: the taken set, and
 * hence "pool exhausted", is exact.
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

const _pad = (n: number) => String(n).padStart(5, '0');

export const Vlan = entity<Allocation & { slug: string }>('vlan')({
  key: (a: Pick<Allocation, 'vlan_id'>) => ({ pk: `VLAN#${a.vlan_id}`, sk: 'ALLOCATION' }),
  indexes: {
    /** Every allocation, in id order. */
    all: { gsi: 'gsi1', pk: 'VLANS', sk: '{vlan_id:5}' },
    /** A reseller's own. */
    byReseller: { gsi: 'gsi2', pk: 'RESELLER#{reseller_id}#VLAN', sk: '{vlan_id:5}' },
  },
});

/** Stripes of the taken set: 50 stripes of a 400-id pool hold 8 ids each. */
export const VLAN_STRIPES = 50;

const stripeOf = (vlanId: number) => vlanId % VLAN_STRIPES;

/** One stripe of the taken set: the ids of this stripe that are allocated (a number set). */
const VlanStripe = entity<{ taken?: Set<number> }>('vlan_stripe')({
  key: (s: { stripe: number }) => ({ pk: `VLAN#POOL#${s.stripe}`, sk: 'POOL' }),
});

// Access: BatchGetItem (ConsistentRead) pk=VLAN#POOL#<s>, s = 0..VLAN_STRIPES-1: every allocated id, lowest first.
export async function readTaken(): Promise<number[]> {
  const stripes = await batchGet(
    Array.from({ length: VLAN_STRIPES }, (_, stripe) => [VlanStripe, { stripe }] as const),
    { consistent: true },
  );
  return stripes.flatMap((s) => (s?.taken ? [...s.taken] : [])).sort((a, b) => a - b);
}

/** `race`: the id was taken since it was read (try another). `duplicate`: NAS id or reseller taken. */
export type AllocateResult = 'ok' | 'race' | 'duplicate';

/**
 * The allocation transaction: add the id to its stripe (only if no other allocation holds it),
 * put the allocation, claim the NAS id, mark the reseller as holding it, and create the VLAN's
 * default gateway rules. All or nothing.
 */
// Access: TransactWriteItems [Update VLAN#POOL#<id mod 50> ADD taken (NOT contains id), Put VLAN#<id> (not exists),
// Put NAS#<nas_id> (not exists), Update RESELLER#<id>/PROFILE (no vlan_id yet), Put 3 x VLAN#<id>#RULES (not exists)].
export async function allocateTx(input: {
  allocation: Allocation;
  slug: string;
  /** The VLAN's first firewall rules (network/default-rules.ts). */
  rules: GatewayRule[];
}): Promise<AllocateResult> {
  const a = input.allocation;
  try {
    await transact({
      stripe: VlanStripe.tx.upsert(
        { stripe: stripeOf(a.vlan_id) },
        { add: { taken: new Set([a.vlan_id]) } },
        VlanStripe.where.lacksValue('taken', a.vlan_id),
      ),
      allocation: Vlan.tx.create({ ...a, slug: input.slug }),
      nas: Nas.tx.create({
        nas_id: a.nas_id,
        reseller_id: a.reseller_id,
        reseller_name: a.reseller_name,
        vlan_id: a.vlan_id,
        kind: 'vlan',
      }),
      reseller: Reseller.tx.upsert(
        a,
        {
          set: {
            reseller_id: a.reseller_id,
            reseller_name: a.reseller_name,
            site_count: a.site_count,
            vlan_id: a.vlan_id,
            nas_id: a.nas_id,
            slug: input.slug,
          },
        },
        Reseller.where.lacks('vlan_id'),
      ),
      ...rulesCreate(input.rules),
    });
    return 'ok';
  } catch (error) {
    const c = cancelled<string>(error);
    if (!c) throw error;
    // The NAS id or the reseller is taken: final, whatever else failed.
    if (c.failed('nas') || c.failed('reseller')) return 'duplicate';
    // The id was taken meanwhile, or another transaction held one of the items: try again.
    if (c.failed('stripe') || c.conflict) return 'race';
    // The stripe said free but the allocation or its rules exist: the data is inconsistent, do not loop.
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
 * site count but no VLAN; the id leaves its stripe's taken set, free for the next allocation.
 * False when the VLAN was not allocated (any more).
 */
// Access: TransactWriteItems [Delete VLAN#<id> (exists), Delete NAS#<nas_id>, Delete BRANDING#<nas_id>,
// Delete the default VLAN#<id>#RULES, Update RESELLER#<id>/PROFILE REMOVE vlan_id (vlan_id = :v), Update VLAN#POOL#<id mod 50> DELETE taken].
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
        { remove: ['vlan_id', 'nas_id', 'slug', 'releasing'] },
        Reseller.where.is('vlan_id', a.vlan_id),
      ),
      stripe: VlanStripe.tx.update(
        { stripe: stripeOf(a.vlan_id) },
        { drop: { taken: new Set([a.vlan_id]) } },
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
