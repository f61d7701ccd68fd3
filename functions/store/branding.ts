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
      owner: Nas.tx.check(
        { nas_id: nasId },
        { expression: 'reseller_id = :r', values: { ':r': resellerId } },
      ),
      branding: Branding.tx.upsert(
        { nas_id: nasId },
        {
          expression: `SET ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
          names: Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
          values: { ...Object.fromEntries(entries.map(([k, v]) => [`:${k}`, v])) },
        },
      ),
    });
    return true;
  } catch (error) {
    if (cancelled<'owner' | 'branding'>(error)?.failed('owner')) return false;
    throw error;
  }
}
