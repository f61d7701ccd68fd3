// A hotspot's saved branding and its uploaded logo.

import { batchGet, cancelled, entity, transact } from './entity.js';
import { Nas, type NasRecord } from './nas.js';

/** What a reseller set for a hotspot's captive portal; missing fields take the defaults. */
export interface BrandingFields {
  logo_url?: string;
  primary_color?: string;
  secondary_color?: string;
  banner_rotation_seconds?: number;
  custom_css?: string;
  updated_at?: string;
}

export const Branding = entity<BrandingFields & { nas_id?: string }>('branding')({
  key: (b: { nas_id: string }) => ({ pk: `BRANDING#${b.nas_id}`, sk: 'BRANDING' }),
});

/** The NAS record and the saved branding of a hotspot, in one round trip. */
// Access: BatchGetItem pk=NAS#<nas_id> and pk=BRANDING#<nas_id> (consistent on request).
export async function readBranding(
  nasId: string,
  options: { consistent?: boolean } = {},
): Promise<{ nas?: NasRecord; saved?: BrandingFields }> {
  const [nas, saved] = await batchGet(
    [
      [Nas, { nas_id: nasId }],
      [Branding, { nas_id: nasId }],
    ],
    options,
  );
  if (saved) delete saved.nas_id;
  return { nas, saved };
}

/**
 * Saves the fields given, leaving the others as they were, while the NAS id still belongs to
 * the reseller: a hotspot released meanwhile gets no branding that a later owner of the same
 * NAS id would inherit. False when it does not.
 */
// Access: TransactWriteItems [ConditionCheck NAS#<nas_id> (reseller_id = :r), Update BRANDING#<nas_id> SET <given fields>].
export async function saveBranding(
  nasId: string,
  resellerId: string,
  fields: BrandingFields,
): Promise<boolean> {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  try {
    await transact({
      owner: Nas.tx.check({ nas_id: nasId }, Nas.where.is('reseller_id', resellerId)),
      branding: Branding.tx.upsert({ nas_id: nasId }, { set: Object.fromEntries(entries) }),
    });
    return true;
  } catch (error) {
    if (cancelled<'owner' | 'branding'>(error)?.failed('owner')) return false;
    throw error;
  }
}

/**
 * A hotspot's uploaded logo, beside its branding (one item, replaced by the next upload). Served
 * only while the branding's `logo_url` names its hash: a hotspot released, or a logo URL set
 * since, leaves it unreachable.
 */
export interface LogoRecord {
  nas_id: string;
  hash: string;
  type: string;
  width: number;
  height: number;
  bytes: Uint8Array;
  updated_at: string;
}

export const Logo = entity<LogoRecord>('logo')({
  key: (l: { nas_id: string }) => ({ pk: `BRANDING#${l.nas_id}`, sk: 'LOGO' }),
});

/** The logo item and the branding that may name it, in one round trip. */
// Access: BatchGetItem pk=BRANDING#<nas_id> sk=LOGO and sk=BRANDING.
export async function readLogo(nasId: string): Promise<{ logo?: LogoRecord; logoUrl?: string }> {
  const [logo, saved] = await batchGet([
    [Logo, { nas_id: nasId }],
    [Branding, { nas_id: nasId }],
  ]);
  return { ...(logo ? { logo } : {}), ...(saved?.logo_url ? { logoUrl: saved.logo_url } : {}) };
}

/**
 * Stores an uploaded logo and points the branding's `logo_url` at it, while the NAS id still
 * belongs to the reseller (as `saveBranding`). False when it does not.
 */
// Access: TransactWriteItems [ConditionCheck NAS#<nas_id> (reseller_id = :r), Put BRANDING#<nas_id>/LOGO,
// Update BRANDING#<nas_id> SET logo_url, updated_at].
export async function saveLogo(resellerId: string, logo: LogoRecord, logoUrl: string): Promise<boolean> {
  try {
    await transact({
      owner: Nas.tx.check({ nas_id: logo.nas_id }, Nas.where.is('reseller_id', resellerId)),
      logo: Logo.tx.put(logo),
      branding: Branding.tx.upsert(
        { nas_id: logo.nas_id },
        { set: { logo_url: logoUrl, updated_at: logo.updated_at } },
      ),
    });
    return true;
  } catch (error) {
    if (cancelled<'owner' | 'logo' | 'branding'>(error)?.failed('owner')) return false;
    throw error;
  }
}
