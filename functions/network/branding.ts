import { createHash } from 'node:crypto';
import { clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import type { Principal } from '../core/tokens.js';
import { type BrandingFields, readBranding, saveBranding } from '../store/branding.js';
import { networkSettings } from './settings.js';
import { assertActsFor } from './sites.js';

export interface Branding {
  nas_id: string;
  reseller_name: string;
  logo_url: string;
  primary_color: string;
  secondary_color: string;
  banner_rotation_seconds: number;
  custom_css: string;
}

export type PortalBranding = Pick<Branding, 'nas_id' | 'reseller_name' | 'logo_url' | 'primary_color'>;

function withDefaults(nasId: string, resellerName: string, saved: BrandingFields | undefined): Branding {
  const d = networkSettings();
  return {
    nas_id: nasId,
    reseller_name: resellerName,
    logo_url: saved?.logo_url ?? d.BRANDING_DEFAULT_LOGO_URL,
    primary_color: saved?.primary_color ?? d.BRANDING_DEFAULT_PRIMARY,
    secondary_color: saved?.secondary_color ?? d.BRANDING_DEFAULT_SECONDARY,
    banner_rotation_seconds: saved?.banner_rotation_seconds ?? 10,
    custom_css: saved?.custom_css ?? '',
  };
}

/** A hotspot's branding, with defaults for what was never set; 404 for an unknown NAS id. */
export async function brandingOf(nasId: string): Promise<Branding> {
  const { nas, saved } = await readBranding(nasId);
  if (!nas) throw notFound('Hotspot');
  return withDefaults(nasId, nas.reseller_name, saved);
}

export const portalView = (b: Branding): PortalBranding => ({
  nas_id: b.nas_id,
  reseller_name: b.reseller_name,
  logo_url: b.logo_url,
  primary_color: b.primary_color,
});

/** Strong ETag of a body: portals revalidate with If-None-Match and get a 304. */
export const etagOf = (body: unknown): string =>
  `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;

export async function updateBranding(
  principal: Principal | undefined,
  nasId: string,
  changes: Omit<BrandingFields, 'updated_at'>,
): Promise<Branding> {
  const { nas } = await readBranding(nasId);
  if (!nas) throw notFound('Hotspot');
  assertActsFor(principal, nas.reseller_id);
  const saved = await saveBranding(nasId, { ...changes, updated_at: clock.iso() });
  return withDefaults(nasId, nas.reseller_name, saved);
}
