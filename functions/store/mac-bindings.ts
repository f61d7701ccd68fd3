// Devices remembered for an access code by their MAC, with consent: bound, forgotten, listed by MAC, code or hotspot.

import { Access, type AccessCode } from './access-codes.js';
import { allOf, cancelled, entity, exists, transact } from './entity.js';

/**
 * A device remembered for an access code, with its subscriber's consent on the portal: its MAC
 * (as the router reports it, `AA:BB:CC:DD:EE:FF`) and the reseller of the hotspot it was bound
 * at, which is the code's own. A RouterOS hotspot with `login-by=...,mac` then logs the device
 * in by its MAC alone (functions/radius/login.ts) while the code is valid.
 *
 * Looked up by (reseller, MAC) at each MAC login, so the key starts with both: the same MAC at
 * another reseller's hotspot finds nothing. How many devices a code has bound is counted on the
 * code itself (`bound_devices`), raised and lowered in the same transaction as the binding, so
 * that two devices racing for the last place cannot both be bound. Kept until the code's end
 * (TTL): a phone's MAC is personal data, kept no longer than it is of use.
 */
export interface MacBinding {
  reseller_id: string;
  /** `AA:BB:CC:DD:EE:FF`. */
  mac: string;
  code: string;
  /** The hotspot the consent was given at. */
  nas_id: string;
  /** The code's buyer, when known: whose devices `GET /access/devices/mine` lists. */
  subscriber_id?: string;
  bound_at: string;
  /** The code's end when bound (ISO): DynamoDB removes the binding after it. */
  expires_at: string;
}

export const MacBindingEntity = entity<MacBinding>('mac_binding')({
  key: (b: Pick<MacBinding, 'reseller_id' | 'mac' | 'code'>) => ({
    pk: `MAC#${b.reseller_id}#${b.mac}`,
    sk: `CODE#${b.code}`,
  }),
  indexes: {
    /** The devices bound to one code (a subscriber's list; forgetting them all). */
    byCode: { gsi: 'gsi1', pk: 'CODE#{code}#MACS', sk: '{mac}' },
    /** The devices bound at one hotspot (its release forgets them). */
    byNas: { gsi: 'gsi2', pk: 'NAS#{nas_id}#MACS', sk: '{reseller_id}#{mac}#{code}' },
  },
  ttl: (b) => Math.floor(Date.parse(b.expires_at) / 1000),
});

export type BindOutcome = 'bound' | 'already' | 'device_limit' | 'gone';

/**
 * Binds a device to a code: the binding is created and the code's `bound_devices` raised, only
 * while it is under `max_devices` (one transaction). `already` when this device is bound to it.
 */
// Access: TransactWrite [PutItem pk=MAC#<reseller>#<mac> sk=CODE#<code> attribute_not_exists(pk);
// UpdateItem pk=CODE#<code> ADD bound_devices 1, condition exists and bound_devices < max_devices].
export async function bindMac(b: MacBinding, code: AccessCode): Promise<BindOutcome> {
  try {
    await transact({
      binding: MacBindingEntity.tx.create(b),
      code: Access.tx.update(
        { code: code.code },
        { add: { bound_devices: 1 } },
        allOf(
          exists,
          Access.where.lacksOr(
            'bound_devices',
            Access.where.compare('bound_devices', '<', code.offer.max_devices),
          ),
        ),
      ),
    });
    return 'bound';
  } catch (error) {
    const c = cancelled<'binding' | 'code'>(error);
    if (!c) throw error;
    if (c.failed('binding')) return 'already';
    if (c.failed('code')) return (await Access.get({ code: code.code })) ? 'device_limit' : 'gone';
    throw error;
  }
}

/** Forgets a device: the binding deleted and the code's count lowered together. False when it was not bound. */
// Access: TransactWrite [DeleteItem pk=MAC#<reseller>#<mac> sk=CODE#<code> attribute_exists(pk);
// UpdateItem pk=CODE#<code> ADD bound_devices -1, condition exists].
export async function forgetMac(k: Pick<MacBinding, 'reseller_id' | 'mac' | 'code'>): Promise<boolean> {
  try {
    await transact({
      binding: MacBindingEntity.tx.delete(k, exists),
      code: Access.tx.update({ code: k.code }, { add: { bound_devices: -1 } }, exists),
    });
    return true;
  } catch (error) {
    const c = cancelled<'binding' | 'code'>(error);
    if (!c) throw error;
    if (c.failed('binding')) return false;
    // The code is gone (past its retention): the binding alone goes.
    if (c.failed('code')) return MacBindingEntity.delete(k, exists);
    throw error;
  }
}

/** The codes a device is bound to at one reseller's hotspots (a MAC login). */
// Access: Query pk=MAC#<reseller>#<mac> (strongly consistent: a device just forgotten is refused).
export const bindingsOfMac = (resellerId: string, mac: string): Promise<MacBinding[]> =>
  MacBindingEntity.queryAll({
    pk: MacBindingEntity.key({ reseller_id: resellerId, mac, code: '' }).pk,
    consistent: true,
  });

/** The devices bound to a code. */
// Access: Query byCode (gsi1) gsi1pk=CODE#<code>#MACS.
export const bindingsOfCode = (code: string): Promise<MacBinding[]> =>
  MacBindingEntity.queryIndexAll('byCode', { code });

/** The devices bound at a hotspot by one reseller (a NAS id's release forgets them). */
// Access: Query byNas (gsi2) gsi2pk=NAS#<nas_id>#MACS, gsi2sk begins_with <reseller_id>#.
export const bindingsAtNas = (nasId: string, resellerId: string): Promise<MacBinding[]> =>
  MacBindingEntity.queryIndexAll('byNas', { nas_id: nasId }, { sk: { beginsWith: `${resellerId}#` } });
