// A hotspot's branding: read for the portal, changed by its reseller (colours, texts, logo, login origin), with its ETag.

import { createHash } from 'node:crypto';
import { assertActsFor } from '../core/access.js';
import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { notFound } from '../core/errors.js';
import { pick } from '../core/pick.js';
import type { Principal } from '../core/principal.js';
import { type BrandingFields, readBranding, readLogo, saveBranding, saveLogo } from '../store/branding.js';
import { getNas, loginOriginOf, setNasLoginOrigin } from '../store/nas.js';
import { getReseller } from '../store/resellers.js';
import { checkLogo, logoPath } from './logo.js';
import { isNasIdShape } from './naming.js';
import { networkSettings } from './settings.js';

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
export type BrandingChanges = Omit<BrandingFields, 'updated_at'>;

function withDefaults(nasId: string, resellerName: string, saved: BrandingFields | undefined): Branding {
  const d = networkSettings();
  return {
    nas_id: nasId,
    reseller_name: resellerName,
    logo_url: saved?.logo_url ?? onOwnOrigin(d.BRANDING_DEFAULT_LOGO_URL),
    primary_color: saved?.primary_color ?? d.BRANDING_DEFAULT_PRIMARY,
    secondary_color: saved?.secondary_color ?? d.BRANDING_DEFAULT_SECONDARY,
    banner_rotation_seconds: saved?.banner_rotation_seconds ?? d.BRANDING_DEFAULT_ROTATION_SECONDS,
    custom_css: saved?.custom_css ?? '',
  };
}

/** The hotspot behind a NAS id with its saved branding; 404 for one never issued. */
async function hotspot(nasId: string, consistent = false) {
  if (!isNasIdShape(nasId)) throw notFound('Hotspot');
  const { nas, saved } = await readBranding(nasId, { consistent });
  if (!nas) throw notFound('Hotspot');
  return { nas, saved };
}

/** A hotspot's branding (VLAN or site NAS id), with defaults for what was never set. */
export async function brandingOf(nasId: string): Promise<Branding> {
  const { nas, saved } = await hotspot(nasId);
  return withDefaults(nasId, nas.reseller_name, saved);
}

/**
 * What the portal page is written from: the branding, the one origin it may post codes to, and
 * its reseller's country (where its subscribers' numbers are read first).
 */
export async function portalOf(
  nasId: string,
): Promise<Branding & { login_origin: string; country?: string }> {
  const { nas, saved } = await hotspot(nasId);
  const reseller = await getReseller(nas.reseller_id);
  return {
    ...withDefaults(nasId, nas.reseller_name, saved),
    login_origin: loginOriginOf(nas),
    ...(reseller?.country ? { country: reseller.country } : {}),
  };
}

/**
 * Registers where a hotspot's router takes logins (owning reseller or admin): the portal posts
 * access codes to that origin only. 404 for an unknown hotspot.
 */
export async function updateLoginOrigin(principal: Principal, nasId: string, origin: string) {
  if (!isNasIdShape(nasId)) throw notFound('Hotspot');
  const nas = await getNas(nasId);
  if (!nas) throw notFound('Hotspot');
  assertActsFor(principal, nas.reseller_id);
  if (!(await setNasLoginOrigin(nasId, origin))) throw notFound('Hotspot');
  return { nas_id: nasId, login_origin: origin };
}

export const portalView = (b: Branding): PortalBranding =>
  pick(b, 'nas_id', 'reseller_name', 'logo_url', 'primary_color');

/** Strong ETag of a body: portals revalidate with If-None-Match and get a 304. */
export const etagOf = (body: unknown): string =>
  `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;

/**
 * True when an If-None-Match header names this ETag (or is `*`). The comparison is weak, as
 * RFC 9110 wants for If-None-Match: `W/"x"` matches `"x"`.
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Partial update by the owning reseller or an admin; answers the whole record as saved. */
export async function updateBranding(
  principal: Principal,
  nasId: string,
  changes: BrandingChanges,
): Promise<Branding> {
  const { nas } = await hotspot(nasId);
  assertActsFor(principal, nas.reseller_id);
  if (!(await saveBranding(nasId, nas.reseller_id, { ...changes, updated_at: clock.iso() })))
    throw notFound('Hotspot');
  const after = await hotspot(nasId, true);
  return withDefaults(nasId, after.nas.reseller_name, after.saved);
}

/** The platform's own origin, as the branding's `logo_url` names an uploaded logo. */
const ownOrigin = () => config().PUBLIC_BASE_URL.replace(/\/$/, '');

/**
 * An uploaded logo, checked (functions/network/logo.ts) and stored by the owning reseller or an
 * admin; the branding's `logo_url` then names it on the platform's own origin.
 */
export async function uploadLogo(principal: Principal, nasId: string, base64: string): Promise<Branding> {
  const { nas } = await hotspot(nasId);
  assertActsFor(principal, nas.reseller_id);
  const logo = await checkLogo(base64);
  const url = `${ownOrigin()}${logoPath(nasId, logo.hash)}`;
  const record = { nas_id: nasId, ...logo, updated_at: clock.iso() };
  if (!(await saveLogo(nas.reseller_id, record, url))) throw notFound('Hotspot');
  const after = await hotspot(nasId, true);
  return withDefaults(nasId, after.nas.reseller_name, after.saved);
}

/** The uploaded logo by its hash, while the branding names it; 404 otherwise. */
export async function servedLogo(nasId: string, hash: string) {
  if (!isNasIdShape(nasId)) throw notFound('Logo');
  const { logo, logoUrl } = await readLogo(nasId);
  if (!logo || logo.hash !== hash || logoUrl !== `${ownOrigin()}${logoPath(nasId, hash)}`)
    throw notFound('Logo');
  return logo;
}

/** A path (the default logo, `/portal/assets/logo.svg`) as a URL on the platform's origin. */
const onOwnOrigin = (url: string) => (url.startsWith('/') ? `${ownOrigin()}${url}` : url);

/**
 * The path of a logo served by the platform itself (an uploaded one, or the portal's default),
 * for the portal to load from its own origin; undefined for any other URL.
 */
export function ownLogoPath(logoUrl: string): string | undefined {
  const own = ['/api/v1/branding/', '/portal/assets/'].some((p) => logoUrl.startsWith(`${ownOrigin()}${p}`));
  return own ? logoUrl.slice(ownOrigin().length) : undefined;
}
