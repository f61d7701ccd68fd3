// The demo `npm start` sets up: a reseller, its hotspot, router and codes, to try the whole chain at once.

import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { generateVouchers } from '../../functions/billing/vouchers.js';
import { allocateVlan } from '../../functions/network/vlans.js';
import { type Credentials, register, rotate } from '../../functions/routers/routers.js';
import { Access, getAccessCode } from '../../functions/store/access-codes.js';
import { getAccount, upsertOperator } from '../../functions/store/accounts.js';
import { getReseller, recordReseller } from '../../functions/store/resellers.js';
import { getRouter } from '../../functions/store/routers.js';

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

/** The demo's routers (fixed ids, so a restart on a kept database finds them again). */
export const DEMO_UDP_ROUTER = 'rtr_demo_udp';
export const DEMO_RADSEC_ROUTER = 'rtr_demo_radsec';
export const CANARY_ROUTER = 'rtr_canary_udp';
/** The loopback address the canary's router sends from (the demo router has 127.0.0.1). */
export const CANARY_ROUTER_SOURCE = '127.0.0.2';

/**
 * A UDP router with a fixed id and secret (LOCAL ONLY: real routers get a random id and a
 * generated secret): registered the first time, its secret set again at each start so that it
 * follows RADIUS_SECRET. A router revoked by hand stays revoked.
 */
async function localUdpRouter(
  routerId: string,
  input: { resellerId: string; nasId: string; sourceIp: string; name: string },
  secret: string,
): Promise<void> {
  const existing = await getRouter(routerId);
  if (!existing) {
    await register(
      {
        reseller_id: input.resellerId,
        name: input.name,
        nas_ids: [input.nasId],
        transport: 'udp',
        source_ip: input.sourceIp,
      },
      { routerId, secret },
    );
  } else if (existing.status === 'active') await rotate(existing, { secret });
}

/**
 * The demo's routers, LOCAL ONLY: `rtr_demo_udp` at 127.0.0.1 (radclient from this machine is
 * the demo hotspot's router; secret RADIUS_SECRET), `rtr_canary_udp` at 127.0.0.2 (the local
 * canary's RADIUS check), and `rtr_demo_radsec`, whose client certificate is issued again at
 * each start (the previous one stops working) and answered here to be written to files.
 */
export async function seedDemoRouters(
  demo: { nasId: string; canaryNasId: string },
  secret: string,
): Promise<Credentials | undefined> {
  await localUdpRouter(
    DEMO_UDP_ROUTER,
    { resellerId: DEMO_RESELLER_ID, nasId: demo.nasId, sourceIp: '127.0.0.1', name: 'Demo router (UDP)' },
    secret,
  );
  await localUdpRouter(
    CANARY_ROUTER,
    {
      resellerId: CANARY_RESELLER_ID,
      nasId: demo.canaryNasId,
      sourceIp: CANARY_ROUTER_SOURCE,
      name: 'Canary',
    },
    secret,
  );
  const radsec = await getRouter(DEMO_RADSEC_ROUTER);
  if (!radsec)
    return (
      await register(
        {
          reseller_id: DEMO_RESELLER_ID,
          name: 'Demo router (RadSec)',
          nas_ids: [demo.nasId],
          transport: 'radsec',
        },
        { routerId: DEMO_RADSEC_ROUTER },
      )
    ).credentials;
  return radsec.status === 'active' ? (await rotate(radsec)).credentials : undefined;
}
