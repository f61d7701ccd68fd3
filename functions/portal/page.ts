// The captive portal's page of one hotspot, written server-side from its branding and forfaits.

import { createHash } from 'node:crypto';
import { COUNTRY_FACTS, countryName, HOME_COUNTRY } from '../core/countries.js';
import phonePlans from '../core/phone-metadata.json' with { type: 'json' };
import { PORTAL_SCRIPT, PORTAL_STYLE } from './assets.generated.js';
import { loginOrigin, routerParams, trustedRouter } from './router-login.js';
import { type Key, type Lang, PROVIDERS, t } from './strings.js';

/** What the portal page of one hotspot is written from. */
export interface PortalInput {
  nasId: string;
  resellerName: string;
  /** Already checked by the branding rules (https, public host name). */
  logoUrl: string;
  primaryColor: string;
  secondaryColor: string;
  customCss: string;
  /** The reseller's own welcome sentence; the default names the reseller. */
  welcomeText?: string;
  lang: Lang;
  /** The query string as the router sent it (or as the page put it back). */
  query: URLSearchParams;
  /** The origin registered for the hotspot's router (NAS record): the only one codes go to. */
  loginOrigin: string;
  /** The reseller's country (ISO 3166-1 alpha-2): the phone field's country and example. */
  country?: string;
}

export interface PortalPage {
  html: string;
  /** The Content-Security-Policy header that goes with this HTML. */
  csp: string;
}

/** What the canary's portal check looks for: the page is the portal, not a router's error page. */
export const PORTAL_MARKER = 'data-hotspot-portal="v1"';

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** White or near-black, whichever reads better on that colour (WCAG contrast ratio). */
function textOn(hex: string): string {
  const l = luminance(/^#[0-9a-f]{6}$/i.test(hex) ? hex : '#0f6cbd');
  return 1.05 / (l + 0.05) >= (l + 0.05) / (0.0056 + 0.05) ? '#ffffff' : '#111111';
}

const colour = (hex: string, fallback: string): string => (/^#[0-9a-f]{6}$/i.test(hex) ? hex : fallback);

/**
 * The countries the platform serves, by name and calling code, the hotspot's reseller's first and
 * chosen: a subscriber types its number the national way and is rarely abroad. Each option
 * carries its names in both languages (the page switches in place) and an example number.
 */
function countryOptions(home: string, lang: Lang): string {
  const plans = phonePlans as unknown as {
    countries: Record<string, [string, ...unknown[]]>;
  };
  return Object.entries(plans.countries)
    .map(([iso, plan]) => ({
      iso,
      code: plan[0],
      trunk: plan[5] === '0' || plan[5] === 0 ? '0' : '',
      facts: COUNTRY_FACTS[iso],
    }))
    .sort((a, b) =>
      a.iso === home
        ? -1
        : b.iso === home
          ? 1
          : countryName(a.iso, lang).localeCompare(countryName(b.iso, lang)),
    )
    .map(
      (c) =>
        `<option value="${c.code}${c.trunk ? ':0' : ''}" data-fr="${escapeHtml(c.facts?.fr ?? c.iso)}" data-en="${escapeHtml(c.facts?.en ?? c.iso)}" data-example="${escapeHtml(c.facts?.example ?? '')}"${c.iso === home ? ' selected' : ''}>${escapeHtml(countryName(c.iso, lang))} (+${c.code})</option>`,
    )
    .join('');
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The portal's HTML and its Content-Security-Policy: scripts and the stylesheet from the page's
 * own origin, the branding `<style>` by its hash, images from the page, data: URIs and the
 * reseller's logo host, API calls to the page's origin, and forms posted to the page or to the
 * router's login URL (`link-login-only`, or CoovaChilli's `uamip:uamport`) only.
 */
export function renderPortal(input: PortalInput): PortalPage {
  const { lang } = input;
  const home = input.country && COUNTRY_FACTS[input.country] ? input.country : HOME_COUNTRY;
  const tr = (key: Key) => escapeHtml(t(lang, key));
  const primary = colour(input.primaryColor, '#0f6cbd');
  const secondary = colour(input.secondaryColor, '#ffffff');
  // Saved only as its parser serialised it after the checks (network/custom-css.ts), which
  // refuse `<`; refused here too, so that nothing could ever end the <style> element early.
  const custom = input.customCss.includes('<') ? '' : input.customCss;
  const style = `:root{--p:${primary};--on-p:${textOn(primary)};--s:${secondary};--on-s:${textOn(secondary)}}${custom}`;
  // A path is a logo the platform serves itself (uploaded): the page's own origin, 'self'.
  const logo = input.logoUrl.startsWith('/') ? { href: input.logoUrl, origin: '' } : new URL(input.logoUrl);
  // A login URL on another origin than the registered one gets no form-action: the browser
  // itself would refuse the post, should the script ever try.
  const formTarget = loginOrigin(trustedRouter(routerParams(input.query), input.loginOrigin));
  const other: Lang = lang === 'fr' ? 'en' : 'fr';
  const switchQuery = new URLSearchParams(input.query);
  switchQuery.set('lang', other);
  // The forms' submit buttons come disabled and the script enables them: a tap before the script
  // arrives (seconds on 2G) would otherwise submit the form as a GET to this page, losing the
  // router's parameters and putting the phone number in the address.
  const button = (key: Key, attrs = '') => `<button${attrs} data-t="${key}">${tr(key)}</button>`;
  const link = (key: Key, id: string) =>
    `<button type="button" class="link" id="${id}" data-t="${key}">${tr(key)}</button>`;
  /** An element whose text is the key's, translated again in place when the language changes. */
  const text = (tag: string, key: Key) => `<${tag} data-t="${key}">${tr(key)}</${tag}>`;
  /** A field's label, by its field's id and the key of its text. */
  const label = (field: string, key: Key) => `<label for="${field}" data-t="${key}">${tr(key)}</label>`;
  const welcome = input.welcomeText
    ? `<h1 id="welcome">${escapeHtml(input.welcomeText)}</h1>`
    : `<h1 id="welcome">${text('span', 'welcome_to')} ${escapeHtml(input.resellerName)}</h1>`;
  const providers = PROVIDERS.map(
    ([id, name], i) =>
      `<label class="choice"><input type="radio" name="provider" value="${id}"${i === 0 ? ' checked' : ''}> ${name}</label>`,
  ).join('');

  const html = `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(input.resellerName)} · ${tr('title')}</title>
<link rel="stylesheet" href="assets/${PORTAL_STYLE}">
<style>${style}</style>
<script src="assets/${PORTAL_SCRIPT}" defer></script>
</head>
<body data-nas="${escapeHtml(input.nasId)}" data-login-origin="${escapeHtml(input.loginOrigin)}" ${PORTAL_MARKER}>
<header><img id="logo" src="${escapeHtml(logo.href)}" alt="" width="40" height="40"><span class="brand">${escapeHtml(input.resellerName)}</span><a id="lang" href="?${escapeHtml(switchQuery.toString())}" hreflang="${other}" lang="${other}" data-t="other_lang">${tr('other_lang')}</a></header>
<main>
${welcome}
<p id="router-error" class="alert" hidden></p>
<p id="msg" class="alert" role="alert" hidden></p>
<section id="s-phone">
${text('p', 'intro')}
<form id="f-phone" novalidate>
${label('country', 'country')}
<select id="country" name="country">${countryOptions(home, lang)}</select>
${label('msisdn', 'phone')}
<input id="msisdn" name="msisdn" type="tel" inputmode="tel" autocomplete="tel-national" required aria-describedby="msisdn-hint">
<p id="msisdn-hint" class="hint">${escapeHtml(t(lang, 'phone_hint', { example: COUNTRY_FACTS[home]?.example ?? '' }))}</p>
${button('phone_submit', ' disabled')}
</form>
${link('have_voucher', 'to-voucher')}
</section>
<section id="s-otp" hidden>
<form id="f-otp" novalidate>
<p id="otp-sent"></p>
${label('otp', 'otp')}
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required>
${button('otp_submit', ' disabled')}
</form>
${link('change_number', 'to-phone')}
</section>
<section id="s-mine" hidden>
${text('h2', 'mine_title')}
${text('p', 'mine_intro')}
<ul id="mine-list" class="cards"></ul>
${text('h3', 'history_title')}
<ul id="history-list" class="cards"></ul>
${link('buy_more', 'mine-buy')}
</section>
<section id="s-forfaits" hidden>
<form id="f-pay" novalidate>
<fieldset>${text('legend', 'forfaits')}<div id="forfaits">${text('p', 'loading')}</div></fieldset>
<fieldset>${text('legend', 'provider')}${providers}</fieldset>
${button('pay', ' disabled')}
</form>
${link('have_voucher', 'to-voucher-2')}
</section>
<section id="s-voucher" hidden>
${text('h2', 'voucher_title')}
<form id="f-voucher" novalidate>
${label('voucher', 'voucher')}
<input id="voucher" name="voucher" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" required>
${button('voucher_submit', ' disabled')}
</form>
${link('back', 'voucher-back')}
</section>
<section id="s-wait" hidden>
${text('h2', 'wait_title')}
${text('p', 'wait_text')}
</section>
<section id="s-code" hidden>
${text('h2', 'code_title')}
<p id="code" class="code"></p>
<p id="remaining"></p>
${text('p', 'code_sms')}
${button('copy', ' type="button" id="copy" class="secondary"')}
<div id="remember-box" hidden>
<label class="choice"><input type="checkbox" id="remember"> ${text('span', 'remember_device')}</label>
<p id="remember-hint"><small data-t="remember_hint">${tr('remember_hint')}</small></p>
</div>
${button('connect', ' type="button" id="connect"')}
${button('forget_device', ' type="button" id="forget" class="secondary" hidden')}
<p id="no-router" hidden data-t="no_router">${tr('no_router')}</p>
${link('buy_more', 'buy-more')}
</section>
</main>
</body></html>
`;

  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${sha256(style)}`,
    `img-src 'self' data:${logo.origin ? ` ${logo.origin}` : ''}`,
    "connect-src 'self'",
    `form-action 'self'${formTarget ? ` ${formTarget}` : ''}`,
    // The platform's own console previews the portal in a frame; no other site may frame it.
    "frame-ancestors 'self'",
    "base-uri 'none'",
  ].join('; ');
  return { html, csp };
}

/** A small page for a NAS id that names no hotspot. */
export function unknownHotspotPage(lang: Lang): PortalPage {
  const [title, text] =
    lang === 'fr'
      ? ['Hotspot inconnu', 'Ce hotspot n’existe pas. Vérifiez l’adresse ou reconnectez-vous au Wi-Fi.']
      : ['Unknown hotspot', 'This hotspot does not exist. Check the address or join the Wi-Fi again.'];
  return {
    html: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>\n`,
    csp: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  };
}
