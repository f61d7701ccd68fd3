// GET /portal/{nas_id}: A hotspot's captive portal page (HTML, branded; ?lang=fr|en and the router's parameters)

import { AppError } from '../core/errors.js';
import { endpoint, type Reply } from '../core/http.js';
import { OpenQuery } from '../core/schemas.js';
import { etagMatches, etagOf, ownLogoPath, portalOf } from '../network/branding.js';
import { normalizedLogoUrl } from '../network/branding-rules.js';
import { networkSettings } from '../network/settings.js';
import { type PortalPage, renderPortal, unknownHotspotPage } from './page.js';
import { pickLang } from './strings.js';

const page = (status: number, p: PortalPage, headers: Record<string, string>): Reply => ({
  status,
  raw: p.html,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': p.csp,
    // The page's address carries the router's parameters (MAC, CHAP challenge): never sent on.
    'referrer-policy': 'no-referrer',
    ...headers,
  },
});

/**
 * The captive portal of one hotspot, branded from its reseller's record, in the subscriber's
 * language. Revalidated often (a minute) by ETag: a branding change shows within a minute, and a
 * repeat visit costs a 304 while the script and stylesheet come from the browser's cache.
 */
export const handler = endpoint(
  'GET /portal/{nas_id}',
  {
    query: OpenQuery,
    response: { status: 200, contentType: 'text/html' },
    also: [
      { status: 304, description: 'Not modified (If-None-Match)' },
      { status: 404, contentType: 'text/html', description: 'No such hotspot: a page saying so' },
    ],
  },
  async ({ params, event, headers }) => {
    const query = new URLSearchParams(event.rawQueryString ?? '');
    const lang = pickLang(query.get('lang') ?? undefined, headers['accept-language']);
    const vary = { vary: 'accept-language' };
    let branding: Awaited<ReturnType<typeof portalOf>>;
    try {
      branding = await portalOf(params.nas_id ?? '');
    } catch (error) {
      if (error instanceof AppError && error.code === 'ERR_NOT_FOUND')
        return page(404, unknownHotspotPage(lang), { 'cache-control': 'no-store', ...vary });
      throw error;
    }
    const p = renderPortal({
      nasId: branding.nas_id,
      resellerName: branding.reseller_name,
      // An uploaded logo from this origin; a logo saved before the stricter rules, and refused
      // by them now, gives way to the default.
      logoUrl:
        ownLogoPath(branding.logo_url) ??
        normalizedLogoUrl(branding.logo_url) ??
        networkSettings().BRANDING_DEFAULT_LOGO_URL,
      primaryColor: branding.primary_color,
      secondaryColor: branding.secondary_color,
      customCss: branding.custom_css,
      lang,
      query,
      loginOrigin: branding.login_origin,
      ...(branding.country ? { country: branding.country } : {}),
    });
    const etag = etagOf([p.html, p.csp]);
    const cache = { 'cache-control': 'public, max-age=60', etag, ...vary };
    if (etagMatches(headers['if-none-match'], etag)) return { status: 304, raw: '', headers: cache };
    return page(200, p, cache);
  },
);
