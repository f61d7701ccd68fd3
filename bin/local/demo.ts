import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { generateVouchers } from '../../functions/billing/vouchers.js';
import { allocateVlan } from '../../functions/network/vlans.js';
import { Access, getAccessCode } from '../../functions/store/access-codes.js';
import { getAccount, upsertOperator } from '../../functions/store/accounts.js';
import { getReseller, recordReseller } from '../../functions/store/resellers.js';

/**
 * What `npm start` sets up so that the whole chain can be tried at once: a demo reseller with
 * its hotspot (VLAN, NAS id `access_demo_hotspot`) and a few vouchers for it, and the canary's
 * own hotspot (`access_canary`) with an access code the canary logs in with through RADIUS.
 * Fixed ids: a restart on a kept database (DYNAMODB_PERSIST=1) finds them again.
 */
export const DEMO_RESELLER_ID = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const CANARY_RESELLER_ID = '0c4a7e21-5d3b-4f6a-9b8c-7d6e5f4a3b2c';
/**
 * The demo reseller's and the demo operator's phone numbers: either logs in to the console with
 * the SMS code written to the local outbox (.local/sms-outbox.jsonl).
 */
export const DEMO_RESELLER_MSISDN = '+2250700000001';
export const DEMO_ADMIN_MSISDN = '+2250700000002';
/** The canary's access code (the canary account of the local RADIUS check). */
export const CANARY_CODE = 'CANARYTEST';

async function hotspotOf(resellerId: string, name: string): Promise<string> {
  const existing = await getReseller(resellerId);
  if (existing?.nas_id) return existing.nas_id;
  return (await allocateVlan({ resellerId, resellerName: name, siteCount: 1 })).nas_id;
}

export async function seedDemo(): Promise<{ nasId: string; vouchers: string[]; canaryNasId: string }> {
  const nasId = await hotspotOf(DEMO_RESELLER_ID, 'Demo Hotspot');
  // The console's demo accounts (kept as they are on a restart with a kept database).
  if (!(await getAccount(DEMO_RESELLER_MSISDN))) {
    await upsertOperator({
      msisdn: DEMO_RESELLER_MSISDN,
      role: 'reseller',
      resellerId: DEMO_RESELLER_ID,
      name: 'Demo Hotspot',
    });
    await recordReseller({ resellerId: DEMO_RESELLER_ID, name: 'Demo Hotspot', country: 'CI' });
  }
  if (!(await getAccount(DEMO_ADMIN_MSISDN)))
    await upsertOperator({ msisdn: DEMO_ADMIN_MSISDN, role: 'admin' });
  const forfait = SEED_FORFAITS[0] as { id: string };
  const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId: DEMO_RESELLER_ID, n: 3 });

  const canaryNasId = await hotspotOf(CANARY_RESELLER_ID, 'Canary');
  if (!(await getAccessCode(CANARY_CODE))) {
    await Access.put({
      code: CANARY_CODE,
      reseller_id: CANARY_RESELLER_ID,
      source: 'payment',
      source_id: 'canary',
      forfait_id: forfait.id,
      forfait_name: 'Canary',
      // Ten years, no data cap, as many devices as checks: the canary never uses it up.
      offer: { duration_hours: 24 * 3650, data_limit_mb: 0, cir_kbps: 64, mir_kbps: 64, max_devices: 1000 },
      created_at: new Date().toISOString(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    });
  }
  return { nasId, vouchers: items.map((v) => v.code), canaryNasId };
}
