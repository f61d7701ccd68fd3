import { monthOf } from '../core/clock.js';
import { Access, type AccessCode, bytesOfMb, claimDevice } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { Nas, type NasRecord, type NasVendor } from '../store/nas.js';
import { revenueIncrement } from '../store/revenue.js';
import { salesIncrement } from '../store/sales.js';
import { voucherFirstUse } from '../store/vouchers.js';
import { acceptReply, deviceKey, type Grant, normalizeCode, type Refusal } from './attributes.js';
import { radiusSettings } from './settings.js';

/**
 * Who may connect, decided for every NAS vendor alike:
 * - the code exists, and the NAS asking belongs to the code's reseller;
 * - a code never used is refused past its `use_by`; once started, past its `expires_at`;
 * - its data (counted over all its sessions by accounting) is not used up;
 * - fewer devices than its forfait allows hold a live lease (a device's lease is renewed by
 *   each interim update and ends two intervals after the last one, so a session whose NAS went
 *   silent never blocks a new login, whether or not the sweep has closed it yet).
 *
 * Data shared by several devices: each login may use at most (data left) / max_devices, so
 * however many devices are on at once, together they can never spend more than what is left.
 * With one device (the default) a login gets all that is left.
 *
 * The clock starts at the first accepted login. Two DynamoDB round trips: one BatchGetItem
 * (code and NAS), one conditional UpdateItem (the device's lease, the clock); another pair only
 * when a second login of the same code raced this one.
 */
export interface LoginRequest {
  userName: string;
  nasId: string;
  /** Calling-Station-Id (the device's MAC); else the NAS port keeps devices apart. */
  callingStationId?: string;
  nasPort?: string;
  /**
   * The reseller of the router that sent the request (functions/radius/identity.ts): its NAS
   * ids were that reseller's when it was registered; a NAS id since given to another reseller
   * is refused as another's hotspot.
   */
  routerResellerId?: string;
}

export type Decision =
  | { accept: true; vendor: NasVendor; reply: Record<string, unknown> }
  | { accept: false; reason: Refusal };

/** What a code still allows at `nowMs`, or why it allows nothing. */
export interface Standing {
  secondsLeft: number;
  /** undefined: no data cap. */
  bytesLeft: number | undefined;
  /** End of the access if a login started it now (ISO). */
  expiresAt: string;
}

/** Time and data left on a code at `nowMs` (before any device check). */
export function standing(code: AccessCode, nowMs: number): Standing | { refused: Refusal } {
  if (code.revoked_at) return { refused: 'revoked' };
  if (!code.started_at && code.use_by && Date.parse(code.use_by) <= nowMs) return { refused: 'expired' };
  const end = code.expires_at ? Date.parse(code.expires_at) : nowMs + code.offer.duration_hours * 3600_000;
  const secondsLeft = Math.floor((end - nowMs) / 1000);
  if (secondsLeft <= 0) return { refused: 'expired' };
  const cap = code.offer.data_limit_mb > 0 ? bytesOfMb(code.offer.data_limit_mb) : undefined;
  const bytesLeft = cap === undefined ? undefined : cap - code.used_bytes;
  if (bytesLeft !== undefined && bytesLeft <= 0) return { refused: 'data_used' };
  return { secondsLeft, bytesLeft, expiresAt: new Date(end).toISOString() };
}

function decide(
  code: AccessCode | undefined,
  nas: NasRecord | undefined,
  req: LoginRequest,
  nowMs: number,
):
  | { refused: Refusal }
  | { code: AccessCode; nas: NasRecord; standing: Standing; devices: Record<string, number> } {
  if (!code) return { refused: 'unknown_code' };
  if (!nas || nas.reseller_id !== code.reseller_id) return { refused: 'wrong_hotspot' };
  if (req.routerResellerId !== undefined && nas.reseller_id !== req.routerResellerId)
    return { refused: 'wrong_hotspot' };
  const s = standing(code, nowMs);
  if ('refused' in s) return s;
  const nowS = Math.floor(nowMs / 1000);
  const live = Object.fromEntries(Object.entries(code.devices ?? {}).filter(([, until]) => until > nowS));
  const key = deviceKey(req);
  if (!(key in live) && Object.keys(live).length >= code.offer.max_devices)
    return { refused: 'device_limit' };
  live[key] = nowS + radiusSettings().RADIUS_LEASE_S;
  return { code, nas, standing: s, devices: live };
}

export async function authorizeLogin(req: LoginRequest, nowMs: number): Promise<Decision> {
  const settings = radiusSettings();
  for (let attempt = 0; attempt < 4; attempt++) {
    const [code, nas] = await batchGet(
      [
        [Access, { code: normalizeCode(req.userName) }],
        [Nas, { nas_id: req.nasId }],
      ],
      { consistent: true },
    );
    const d = decide(code, nas, req, nowMs);
    if ('refused' in d) return { accept: false, reason: d.refused };
    const nowIso = new Date(nowMs).toISOString();
    // A voucher's first use redeems it, as the API's redemption would: its price counts once.
    const firstUse =
      !d.code.started_at && d.code.source === 'voucher'
        ? {
            voucher: voucherFirstUse(d.code, nowIso, d.standing.expiresAt),
            revenue: revenueIncrement(d.code.reseller_id, monthOf(nowIso), d.code.price_fcfa ?? 0),
            sales: salesIncrement({
              resellerId: d.code.reseller_id,
              at: nowIso,
              nasId: req.nasId,
              forfaitId: d.code.forfait_id,
              amountFcfa: d.code.price_fcfa ?? 0,
            }),
          }
        : undefined;
    const claimed = await claimDevice({
      code: d.code,
      devices: d.devices,
      nowIso,
      expiresAt: d.standing.expiresAt,
      nasId: req.nasId,
      firstUse,
    });
    if (!claimed) continue;
    const vendor = d.nas.vendor ?? 'mikrotik';
    const grant: Grant = {
      password: req.userName,
      sessionTimeoutS: d.standing.secondsLeft,
      cirKbps: d.code.offer.cir_kbps,
      mirKbps: d.code.offer.mir_kbps,
      dataBytes:
        d.standing.bytesLeft === undefined
          ? undefined
          : Math.floor(d.standing.bytesLeft / d.code.offer.max_devices),
      interimS: settings.RADIUS_INTERIM_S,
      expiresAt: d.standing.expiresAt,
    };
    return { accept: true, vendor, reply: acceptReply(vendor, grant) };
  }
  // Logins of one code kept racing: refuse this one (the NAS or the subscriber tries again).
  return { accept: false, reason: 'device_limit' };
}
