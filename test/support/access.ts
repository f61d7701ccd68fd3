import { randomUUID } from 'node:crypto';
import type { account } from '../../functions/radius/accounting.js';
import { Access, type AccessCode, type AccessOffer } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';

/** What FreeRADIUS reports, as the accounting takes it. */
type AccountingReport = Parameters<typeof account>[0];

/**
 * An unused access code of `resellerId` as a paid purchase leaves it (a day, 1 GB, one device at
 * 512/2048 kbit/s), for tests and benches that put it straight in the table; `offer` and `over`
 * change what the case is about.
 */
export function paidCode(
  resellerId: string,
  offer: Partial<AccessOffer> = {},
  over: Partial<AccessCode> = {},
): AccessCode {
  return {
    code: randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase(),
    reseller_id: resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: randomUUID(),
    offer: {
      duration_hours: 24,
      data_limit_mb: 1024,
      cir_kbps: 512,
      mir_kbps: 2048,
      max_devices: 1,
      ...offer,
    },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
    ...over,
  };
}

/** A reseller with one hotspot (`access_<tag>_…`) and `n` paid codes of 10 GB, in the table. */
export async function resellerWithCodes(
  n: number,
  tag: string,
): Promise<{ resellerId: string; nasId: string; codes: string[] }> {
  const resellerId = randomUUID();
  const nasId = `access_${tag}_${randomUUID().slice(0, 8)}`;
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: tag.toUpperCase(),
    vlan_id: 10,
    kind: 'vlan',
  });
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const code = paidCode(resellerId, { data_limit_mb: 10_000 });
    await Access.put(code);
    codes.push(code.code);
  }
  return { resellerId, nasId, codes };
}

/** An accounting report of `code`'s session `id` at a hotspot: `bytes` used so far, a minute if any. */
export const accountingReport = (
  r: { nasId: string },
  code: string,
  id: string,
  status: AccountingReport['status'],
  bytes = 0,
): AccountingReport => ({
  status,
  uniqueId: id,
  userName: code,
  nasId: r.nasId,
  callingStationId: '02:00:00:00:00:01',
  totalBytes: bytes,
  sessionTimeS: bytes ? 60 : 0,
});
