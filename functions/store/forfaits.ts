// Forfaits: the platform's catalogue and resellers' own, created, changed, retired and listed on sale.

import { clock } from '../core/clock.js';
import { allOf, entity, exists, notExists, statusIs } from './entity.js';

/**
 * A forfait as the catalogue shows it. Declared here, for what is stored; the API's forfait
 * schema is checked against it (test/unit/store-records.test.ts).
 */
export interface Forfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  /** 0: no data cap. */
  data_limit_mb: number;
  cir_kbps: number;
  mir_kbps: number;
  /** Devices that may be online at once with one purchase; 1 when absent. */
  max_devices?: number;
  /**
   * When the duration runs: `first_login` (absent: from the code's first login, wall clock) or
   * `connected` (only while connected). Stored on a reseller's own forfait; see docs/billing.md.
   */
  time_counts?: TimeCounts;
}

export const TIME_COUNTS = ['first_login', 'connected'] as const;
export type TimeCounts = (typeof TIME_COUNTS)[number];

/** What a forfait grants, copied onto the payments and vouchers that sell it. */
/** What a purchase grants, copied onto what sells it (payment, voucher, access code). */
export type Offer = Pick<
  Forfait,
  'duration_hours' | 'data_limit_mb' | 'cir_kbps' | 'mir_kbps' | 'max_devices'
>;

export interface StoredForfait extends Forfait {
  status: 'active' | 'retired';
  created_at: string;
  updated_at: string;
  /** A reseller's own forfait: sold only at that reseller's hotspots. Absent: the platform's. */
  reseller_id?: string;
  /** An own forfait's hotspots (NAS ids); absent or empty: all of its reseller's. */
  nas_ids?: string[];
  /** An own forfait's place in its reseller's list (ascending). */
  position?: number;
  /** An own forfait taken off sale by its reseller (kept, and shown again when unhidden). */
  hidden?: boolean;
}

/** A reseller's own forfait: the stored one with its owner's fields set. */
export type OwnForfait = StoredForfait & { reseller_id: string; position: number; hidden: boolean };

export const ForfaitEntity = entity<StoredForfait>('forfait')({
  key: (f: Pick<Forfait, 'id'>) => ({ pk: `FORFAIT#${f.id}`, sk: 'FORFAIT' }),
  indexes: {
    /**
     * The platform's forfaits on sale, by price: only its active ones carry its keys (sparse
     * index). A reseller's own forfaits are never in it: the public list keeps its contract.
     */
    onSale: {
      gsi: 'gsi1',
      pk: 'FORFAITS#ACTIVE',
      sk: '{price_fcfa:10}#{id}',
      whenReads: ['reseller_id'],
      when: (f: StoredForfait) => f.reseller_id === undefined,
      sparse: { status: 'active' },
    },
    /** A reseller's own forfaits, hidden ones included, in its order (sparse: own ones only). */
    byReseller: {
      gsi: 'gsi2',
      pk: 'RESELLER#{reseller_id}#FORFAITS',
      sk: '{position:6}#{id}',
      when: (f: StoredForfait) => f.reseller_id !== undefined,
    },
  },
});

const publicForfait = ({
  status,
  created_at,
  updated_at,
  reseller_id,
  nas_ids,
  position,
  hidden,
  ...f
}: StoredForfait): Forfait => f;

// Access: Query onSale (gsi1) gsi1pk=FORFAITS#ACTIVE, sorted by price (the catalogue is dozens of items).
export async function listForfaitsOnSale(): Promise<Forfait[]> {
  const items = await ForfaitEntity.queryIndexAll('onSale', {});
  return items.map(publicForfait);
}

/** A reseller's own forfaits in its order, hidden ones included (a few dozen at most: MAX_OWN_FORFAITS). */
// Access: Query byReseller (gsi2) gsi2pk=RESELLER#<reseller_id>#FORFAITS, every page.
export const listOwnForfaits = (resellerId: string): Promise<OwnForfait[]> =>
  ForfaitEntity.queryIndexAll('byReseller', { reseller_id: resellerId }) as Promise<OwnForfait[]>;

/** Whether a forfait may be sold at a hotspot of `resellerId` (`nasId`: the hotspot, if known). */
export function onSaleAt(f: StoredForfait, at: { resellerId: string; nasId?: string }): boolean {
  if (f.status !== 'active' || f.hidden) return false;
  if (f.reseller_id === undefined) return true;
  if (f.reseller_id !== at.resellerId) return false;
  if (!f.nas_ids?.length) return true;
  return at.nasId !== undefined && f.nas_ids.includes(at.nasId);
}

/** What a hotspot's portal offers: its reseller's visible own forfaits in their order. */
export const ownForfaitsAt = async (resellerId: string, nasId: string): Promise<Forfait[]> =>
  (await listOwnForfaits(resellerId)).filter((f) => onSaleAt(f, { resellerId, nasId })).map(publicForfait);

/**
 * How many own forfaits a reseller has made (they are hidden, never deleted): the next one's
 * position, and the cap's counter.
 */
const OwnCount = entity<{ reseller_id: string; n: number }>('forfait_count')({
  key: (r: { reseller_id: string }) => ({ pk: `RESELLER#${r.reseller_id}`, sk: 'FORFAITS' }),
});

/**
 * Creates a reseller's own forfait at the end of its list. The reseller's counter is ADDed
 * under the condition n < max first: parallel creations never make more than `max`
 * (undefined when the reseller has `max` already); its new value is the forfait's position.
 */
// Access: UpdateItem pk=RESELLER#<id>, sk=FORFAITS (ADD n, condition n < max); PutItem
// pk=FORFAIT#<id> with attribute_not_exists(pk), gsi2pk=RESELLER#<id>#FORFAITS.
export async function createOwnForfait(
  resellerId: string,
  f: Forfait & { nas_ids?: string[]; hidden?: boolean },
  max: number,
): Promise<OwnForfait | undefined> {
  const now = clock.iso();
  const position = await OwnCount.upsertReturning(
    { reseller_id: resellerId },
    { add: { n: 1 } },
    OwnCount.where.lacksOr('n', OwnCount.where.compare('n', '<', max)),
  );
  if (!position) return undefined;
  const stored: OwnForfait = {
    ...f,
    reseller_id: resellerId,
    position: position.n,
    hidden: f.hidden ?? false,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  if (!(await ForfaitEntity.put(stored, notExists))) {
    await OwnCount.update({ reseller_id: resellerId }, { add: { n: -1 } });
    return undefined;
  }
  return stored;
}

/**
 * Changes a reseller's own forfait; undefined when it is not that reseller's (or is gone), or
 * when its rates are no longer `rates` (the caller checked the forfait whole against them). The
 * condition re-checks the owner at write time.
 */
// Access: UpdateItem pk=FORFAIT#<id> with reseller_id = :owner AND status = active AND cir_kbps = :cir AND mir_kbps = :mir; a new position moves it in byReseller.
export async function updateOwnForfait(
  resellerId: string,
  id: string,
  changes: Partial<Omit<OwnForfait, 'id' | 'reseller_id' | 'status' | 'created_at' | 'updated_at'>>,
  rates: Pick<OwnForfait, 'cir_kbps' | 'mir_kbps'>,
): Promise<OwnForfait | undefined> {
  const current = await getForfait(id);
  if (current?.reseller_id !== resellerId || current.status !== 'active') return undefined;
  return (await ForfaitEntity.updateReturning(
    { id },
    { set: { ...changes, updated_at: clock.iso() }, read: current },
    allOf(
      ForfaitEntity.where.is('reseller_id', resellerId),
      ForfaitEntity.where.is('status', 'active'),
      ForfaitEntity.where.is('cir_kbps', rates.cir_kbps),
      ForfaitEntity.where.is('mir_kbps', rates.mir_kbps),
    ),
  )) as OwnForfait | undefined;
}

/** Any forfait, retired ones included (old payments keep pointing at them). */
// Access: GetItem pk=FORFAIT#<id>, sk=FORFAIT.
export const getForfait = (id: string): Promise<StoredForfait | undefined> => ForfaitEntity.get({ id });

/** Creates a forfait on sale; false when the id is taken. */
// Access: PutItem pk=FORFAIT#<id> with attribute_not_exists(pk).
export async function createForfait(f: Forfait): Promise<boolean> {
  const now = clock.iso();
  return ForfaitEntity.put({ ...f, status: 'active', created_at: now, updated_at: now }, notExists);
}

/** Changes the offer of a forfait still on sale; undefined when there is none. */
// Access: UpdateItem pk=FORFAIT#<id> with status = active; a new price moves it in onSale.
export async function updateForfait(
  id: string,
  changes: Partial<Omit<Forfait, 'id'>>,
): Promise<StoredForfait | undefined> {
  const current = await getForfait(id);
  if (current?.status !== 'active') return undefined;
  return ForfaitEntity.updateReturning(
    { id },
    // Read as active: the condition below makes sure it still is when the keys are rewritten.
    { set: { ...changes, updated_at: clock.iso() }, read: current },
    statusIs('active'),
  );
}

/** Takes a forfait off sale; the item stays for the payments that reference it. */
// Access: UpdateItem pk=FORFAIT#<id>: status = retired (leaves the sparse onSale index).
export const retireForfait = (id: string): Promise<boolean> =>
  ForfaitEntity.update({ id }, { set: { status: 'retired', updated_at: clock.iso() } }, exists);
