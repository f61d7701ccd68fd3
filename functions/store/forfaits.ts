import { clock } from '../core/clock.js';
import { entity, exists, notExists, statusIs } from './entity.js';

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
}

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
}

export const ForfaitEntity = entity<StoredForfait>('forfait')({
  key: (f: Pick<Forfait, 'id'>) => ({ pk: `FORFAIT#${f.id}`, sk: 'FORFAIT' }),
  indexes: {
    /** The forfaits on sale, by price: only active ones carry its keys (sparse index). */
    onSale: { gsi: 'gsi1', pk: 'FORFAITS#ACTIVE', sk: '{price_fcfa:10}#{id}', sparse: { status: 'active' } },
  },
});

const publicForfait = ({ status, created_at, updated_at, ...f }: StoredForfait): Forfait => f;

// Access: Query onSale (gsi1) gsi1pk=FORFAITS#ACTIVE, sorted by price (the catalogue is dozens of items).
export async function listForfaitsOnSale(): Promise<Forfait[]> {
  const items = await ForfaitEntity.queryIndexAll('onSale', {});
  return items.map(publicForfait);
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
