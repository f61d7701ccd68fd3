// NAS ids (hotspots): their record, vendor, Disconnect address, OTP budget and login origin.

import { entity, exists } from './entity.js';

/**
 * A NAS identifier (the RADIUS NAS-Identifier of a hotspot): unique across the network, claimed
 * by a conditional put when a VLAN or a site is created. Other areas read it to find the
 * reseller behind a hotspot (payments, alerts, branding, RADIUS).
 */
export interface NasRecord {
  nas_id: string;
  reseller_id: string;
  reseller_name: string;
  vlan_id: number;
  kind: 'vlan' | 'site';
  site_number?: number;
  /** Which RADIUS attributes the hotspot's router understands; MikroTik when unset. */
  vendor?: NasVendor;
  /**
   * Where the router takes Disconnect-Requests (RFC 5176): its address as seen by the RADIUS
   * front (default: the source address of its accounting) and port (default 3799).
   */
  coa_host?: string;
  coa_port?: number;
  /** This hotspot's hourly SMS-code budget, when it is not OTP_REQUESTS_PER_HOTSPOT_PER_HOUR. */
  otp_requests_per_hour?: number;
  /**
   * The origin (`http://host[:port]`) the hotspot's router takes logins on: the portal posts an
   * access code there and nowhere else. Unset: `DEFAULT_LOGIN_ORIGIN`, the hotspot DNS name the
   * platform's MikroTik script sets.
   */
  login_origin?: string;
}

/** The MikroTik script's hotspot `dns-name` (bin/admin/mikrotik.ts): `link-login-only` is `http://login.wifi/login`. */
export const DEFAULT_LOGIN_ORIGIN = 'http://login.wifi';

/** The origin a hotspot's portal may post codes to. */
export const loginOriginOf = (nas: Pick<NasRecord, 'login_origin'>): string =>
  nas.login_origin ?? DEFAULT_LOGIN_ORIGIN;

/** The router families whose RADIUS attributes the platform speaks. */
export const NAS_VENDORS = ['mikrotik', 'coova', 'wispr'] as const;
export type NasVendor = (typeof NAS_VENDORS)[number];

export const Nas = entity<NasRecord>('nas')({
  key: (n: Pick<NasRecord, 'nas_id'>) => ({ pk: `NAS#${n.nas_id}`, sk: 'NAS' }),
  indexes: {
    /** A reseller's NAS ids. */
    byReseller: { gsi: 'gsi1', pk: 'RESELLER#{reseller_id}#NAS', sk: '{nas_id}' },
  },
});

/** Sets which router family a hotspot runs (operator CLI); false for an unknown NAS id. */
// Access: UpdateItem pk=NAS#<nas_id> SET vendor, condition attribute_exists(pk).
export const setNasVendor = (nasId: string, vendor: NasVendor): Promise<boolean> =>
  Nas.update({ nas_id: nasId }, { set: { vendor } }, exists);

/**
 * Where a hotspot's router takes Disconnect-Requests (operator CLI): an address (else the source
 * address of its accounting) and a port (else 3799). False for an unknown NAS id.
 */
// Access: UpdateItem pk=NAS#<nas_id> SET/REMOVE coa_host, coa_port, condition attribute_exists(pk).
export const setNasCoa = (nasId: string, coa: { host?: string; port?: number }): Promise<boolean> =>
  Nas.update(
    { nas_id: nasId },
    { set: { coa_host: coa.host || undefined, coa_port: coa.port || undefined } },
    exists,
  );

/** Sets (or, undefined, removes) a hotspot's own hourly SMS-code budget; false for an unknown NAS id. */
// Access: UpdateItem pk=NAS#<nas_id> SET/REMOVE otp_requests_per_hour, condition attribute_exists(pk).
export const setNasOtpBudget = (nasId: string, perHour: number | undefined): Promise<boolean> =>
  Nas.update({ nas_id: nasId }, { set: { otp_requests_per_hour: perHour } }, exists);

/** Registers the origin a hotspot's router takes logins on (API, operator CLI); false for an unknown NAS id. */
// Access: UpdateItem pk=NAS#<nas_id> SET login_origin, condition attribute_exists(pk).
export const setNasLoginOrigin = (nasId: string, origin: string): Promise<boolean> =>
  Nas.update({ nas_id: nasId }, { set: { login_origin: origin } }, exists);

// Access: GetItem pk=NAS#<nas_id>, sk=NAS.
export const getNas = (nasId: string): Promise<NasRecord | undefined> => Nas.get({ nas_id: nasId });

// Access: Query byReseller (gsi1) gsi1pk=RESELLER#<id>#NAS (the VLAN's NAS id and its sites').
export async function listNasIdsOfReseller(resellerId: string): Promise<string[]> {
  const items = await Nas.queryIndexAll('byReseller', { reseller_id: resellerId });
  return items.map((n) => n.nas_id);
}
