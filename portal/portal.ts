/**
 * The captive portal's script: one page whose steps are shown and hidden (phone, SMS code,
 * forfaits, voucher, payment wait, access code), talking to the platform's API on the page's own
 * origin. What it must keep while the subscriber is away at the payment page (the router's
 * parameters, the session token, the payment) is in sessionStorage, per hotspot.
 * Built by bin/portal-assets.ts into functions/portal/assets.generated.ts.
 */
import {
  type NasLogin,
  nasLogin,
  ROUTER_PARAM_NAMES,
  type RouterParams,
  routerErrorKey,
  routerParams,
  trustedRouter,
} from '../functions/portal/router-login';
import {
  capText,
  dataText,
  durationText,
  type Key,
  type Lang,
  priceText,
  remainingText,
  STRINGS,
  speedText,
  t,
} from '../functions/portal/strings';

interface Forfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number | null;
  mir_kbps: number;
}
interface MyCode {
  code: string;
  seconds_remaining: number;
  bytes_remaining: number | null;
  expires_at: string | null;
  forfait_name: string | null;
  forfait_id?: string;
  last_nas_id?: string | null;
}
interface Purchase {
  code: string;
  forfait_id: string;
  forfait_name: string | null;
  created_at: string;
  active: boolean;
}
type Step = 'phone' | 'otp' | 'mine' | 'forfaits' | 'voucher' | 'wait' | 'code';
type Answer = { status: number; body: Record<string, unknown> };

const nasId = document.body.dataset.nas ?? '';
const API = '../api/v1';
// A voucher as the platform prints it: 8 to 12 (10 unless its batch chose) of these 31 characters (no 0, O, 1, I, L).
const VOUCHER = /^[A-HJKMNP-Z2-9]{8,12}$/;

const el = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

/** sessionStorage, per hotspot; a browser that refuses storage just forgets between pages. */
const store = {
  get(name: string): string | null {
    try {
      return sessionStorage.getItem(`portal:${nasId}:${name}`);
    } catch {
      return null;
    }
  },
  set(name: string, value: string | null): void {
    try {
      if (value === null) sessionStorage.removeItem(`portal:${nasId}:${name}`);
      else sessionStorage.setItem(`portal:${nasId}:${name}`, value);
    } catch {
      // Private browsing with storage off: the flow still works within this page.
    }
  },
};

/**
 * The device credential (30 days): in localStorage of the portal's origin, for every hotspot of
 * the platform, not sessionStorage (which a closed tab forgets). Sent only in a request body to
 * the API on this origin; the page's CSP (script-src 'self', connect-src 'self') is what keeps
 * other scripts from reading it. Why not a cookie: docs/decisions.md, "SMS per sale".
 */
const device = {
  get(): string | null {
    try {
      return localStorage.getItem('portal:device');
    } catch {
      return null;
    }
  },
  set(value: string | null): void {
    try {
      if (value === null) localStorage.removeItem('portal:device');
      else localStorage.setItem('portal:device', value);
    } catch {
      // Storage off: the next visit asks for an SMS code again.
    }
  },
};

/**
 * Which codes this browser remembered this device for (code and MAC, in localStorage): the code
 * step offers "Oublier cet appareil" only then. A device remembered from another browser is
 * found after an SMS login, on its code's card ("Retrouver mon code").
 */
const remembered = {
  key: (code: string, mac: string) =>
    `portal:remembered:${code}:${mac.replace(/[^0-9a-f]/gi, '').toUpperCase()}`,
  has(code: string, mac: string): boolean {
    try {
      return localStorage.getItem(this.key(code, mac)) !== null;
    } catch {
      return false;
    }
  },
  set(code: string, mac: string, on: boolean): void {
    try {
      if (on) localStorage.setItem(this.key(code, mac), '1');
      else localStorage.removeItem(this.key(code, mac));
    } catch {
      // Storage off: the control is not offered; the SMS login's card still has it.
    }
  },
};

let lang = document.documentElement.lang as Lang;
let forfaits: Forfait[] = [];
let message: { key: Key; vars: Record<string, string | number> } | undefined;
let shown: { code: string; seconds?: number; unconfirmed?: boolean; fresh?: boolean } | undefined;

// ---- the router's parameters: from the address, else kept from before the payment page ----
const here = new URL(location.href);
const fromRouter = new URLSearchParams();
for (const name of ROUTER_PARAM_NAMES) {
  const v = here.searchParams.get(name);
  if (v !== null) fromRouter.set(name, v);
}
if (routerParams(fromRouter)) store.set('router', fromRouter.toString());
const keptRouter = new URLSearchParams(store.get('router') ?? '');
// Back from the payment page without them: the page's form-action (CSP) is computed from the
// address, so the address gets them back before anything else happens.
const reloading = !routerParams(fromRouter) && !!routerParams(keptRouter);
if (reloading) {
  for (const [k, v] of keptRouter) here.searchParams.set(k, v);
  location.replace(here.href);
}
const claimed = routerParams(fromRouter);
// Only the hotspot's registered login origin gets a code: a link naming another one (an
// attacker's page) is shown as an error, and nothing is ever posted to it.
const router: RouterParams | undefined = trustedRouter(claimed, document.body.dataset.loginOrigin);
const foreignRouter = !!claimed && !router;
/**
 * The router's error, as one of the fixed sentences (its own text is never shown). A refused MAC
 * login (a device not remembered, which is most of them, on a hotspot with MAC login) is no error
 * to the subscriber: the page simply asks for a code, as on a first visit.
 */
const routerErrorKeyOf = (raw: string): Key | undefined => {
  const key = routerErrorKey(raw);
  return key === 'err_mac_unknown' ? undefined : key;
};
const routerError: Key | undefined = foreignRouter
  ? 'err_foreign_router'
  : router?.error
    ? routerErrorKeyOf(router.error)
    : undefined;
/**
 * The router refused a card sent without a pass for the hotspot's flood of wrong codes: the
 * page asks for the number that gets the pass rather than only saying "too many codes".
 */
const floodRefused: string | null =
  routerError === 'err_too_many_codes' && router?.mac && !store.get('token') ? store.get('sent') : null;

// ---- words ----
/** Messages that say what happens next, not what went wrong: shown as a note, not an error. */
const NOTES: ReadonlySet<Key> = new Set<Key>(['topup_for', 'flood_sign_in']);
function say(key: Key, vars: Record<string, string | number> = {}): void {
  message = { key, vars };
  const box = el('msg');
  box.classList.toggle('note', NOTES.has(key));
  box.textContent = t(lang, key, vars);
  box.hidden = false;
}
function quiet(): void {
  message = undefined;
  el('msg').hidden = true;
}

function translate(to: Lang): void {
  lang = to;
  document.documentElement.lang = to;
  for (const node of document.querySelectorAll<HTMLElement>('[data-t]')) {
    node.textContent = t(to, node.dataset.t as Key);
  }
  const other: Lang = to === 'fr' ? 'en' : 'fr';
  const link = el<HTMLAnchorElement>('lang');
  const target = new URL(location.href);
  target.searchParams.set('lang', other);
  link.href = target.search;
  link.hreflang = other;
  link.lang = other;
  if (message) say(message.key, message.vars);
  if (forfaits.length) renderForfaits();
  renderMine();
  if (shown) showCode(shown.code, shown.seconds, shown.unconfirmed, shown.fresh);
  const msisdn = store.get('msisdn');
  if (msisdn) el('otp-sent').textContent = t(to, 'otp_sent', { msisdn });
  if (routerError && !floodRefused) el('router-error').textContent = t(to, routerError);
  for (const option of el<HTMLSelectElement>('country').options) {
    option.textContent = `${option.dataset[to] ?? ''} (+${option.value.split(':')[0]})`;
  }
  phoneHint();
}

/** The example under the phone field: a number of the country chosen, as people there write it. */
function phoneHint(): void {
  const select = el<HTMLSelectElement>('country');
  const example = select.selectedOptions[0]?.dataset.example ?? '';
  el('msisdn-hint').textContent = t(lang, 'phone_hint', { example });
}
el('country').addEventListener('change', phoneHint);

// ---- steps ----
function show(step: Step, focus = true): void {
  for (const s of ['phone', 'otp', 'mine', 'forfaits', 'voucher', 'wait', 'code'] as const) {
    el(`s-${s}`).hidden = s !== step;
  }
  const field = { phone: 'msisdn', otp: 'otp', voucher: 'voucher' }[step as string];
  if (focus && field) el(field).focus();
}

function busy(form: HTMLElement, on: boolean): void {
  for (const b of form.querySelectorAll('button')) b.disabled = on;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const token = store.get('token');
  let res: Response;
  try {
    res = await fetch(`${API}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    say('err_network');
    return undefined;
  }
  const answer: Answer = { status: res.status, body: {} };
  try {
    answer.body = (await res.json()) as Record<string, unknown>;
  } catch {
    // A body that is not JSON (a proxy's error page): the status decides.
  }
  if (res.status === 401 && token && !path.startsWith('/auth/')) {
    store.set('token', null);
    show('phone');
    say('err_session');
    return undefined;
  }
  if (res.status === 429) {
    say('err_rate_limited');
    return undefined;
  }
  if (res.status >= 500) {
    say('err_server');
    return undefined;
  }
  return answer;
}

const errorCode = (a: Answer): string =>
  ((a.body.error as { code?: string } | undefined)?.code ?? '') as string;

function randomKey(): string {
  // crypto.randomUUID needs a secure context; a hotspot's plain-http page has none.
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  );
}

// ---- 1-2: phone number and SMS code ----
function msisdnOf(typed: string, country: string): string {
  const compact = typed.replace(/[\s.\-()]/g, '');
  if (compact.startsWith('+')) return compact;
  if (compact.startsWith('00')) return `+${compact.slice(2)}`;
  const [code = '', trunk] = country.split(':');
  return `+${code}${trunk && compact.startsWith(trunk) ? compact.slice(trunk.length) : compact}`;
}

el('f-phone').addEventListener('submit', async (e) => {
  e.preventDefault();
  quiet();
  const form = el('f-phone');
  const msisdn = msisdnOf(el<HTMLInputElement>('msisdn').value, el<HTMLSelectElement>('country').value);
  busy(form, true);
  // The hotspot and the device's MAC: the SMS budget is then this device's and this hotspot's,
  // not the public address every subscriber here shares.
  const mac = router?.mac;
  const a = await api('POST', '/auth/otp/request', {
    msisdn,
    ...(nasId ? { nas_id: nasId } : {}),
    ...(mac ? { client_mac: mac } : {}),
  });
  busy(form, false);
  if (!a) return;
  if (a.status !== 200) return say(errorCode(a) === 'ERR_RATE_LIMITED' ? 'err_rate_limited' : 'err_msisdn');
  store.set('msisdn', msisdn);
  // Sent back with the code: only a guess carrying it counts against the code (and a stranger
  // without it cannot lock the number out).
  store.set('otp_token', String(a.body.otp_token ?? ''));
  el('otp-sent').textContent = t(lang, 'otp_sent', { msisdn });
  el<HTMLInputElement>('otp').value = '';
  show('otp');
});

el('f-otp').addEventListener('submit', async (e) => {
  e.preventDefault();
  quiet();
  const form = el('f-otp');
  const otp = el<HTMLInputElement>('otp').value.replace(/\D/g, '');
  if (otp.length !== 6) return say('err_otp_invalid');
  busy(form, true);
  const token = store.get('otp_token');
  const a = await api('POST', '/auth/otp/verify', {
    msisdn: store.get('msisdn'),
    otp,
    ...(token ? { otp_token: token } : {}),
    // Next time, this phone gets in without an SMS (POST /auth/device/session).
    remember_device: true,
  });
  busy(form, false);
  if (!a) return;
  if (a.status !== 200)
    return say(errorCode(a) === 'ERR_OTP_EXPIRED' ? 'err_otp_expired' : 'err_otp_invalid');
  store.set('token', String(a.body.session_token));
  if (typeof a.body.device_token === 'string') device.set(a.body.device_token);
  await afterLogin();
});

/** A remembered device: a session without an SMS; false when it must verify a code again. */
async function deviceLogin(): Promise<boolean> {
  const secret = device.get();
  if (!secret) return false;
  const a = await api('POST', '/auth/device/session', { device_token: secret });
  if (a?.status !== 200) {
    // Forgotten, expired or logged out everywhere: back to the SMS code.
    if (a && a.status < 500) device.set(null);
    return false;
  }
  quiet();
  store.set('token', String(a.body.session_token));
  await afterLogin();
  return true;
}

// ---- 3: "Retrouver mon code": codes with time left at this hotspot and the purchases, else 4 ----
let mine: { items: MyCode[]; history: Purchase[] } | undefined;
/** The code a payment tops up ("Recharger ce code"), instead of buying a new one. */
let topupFor: string | undefined;
/** The codes this device is remembered for (MAC login), from the subscriber's remembered devices. */
let rememberedFor = new Set<string>();
/** A MAC as 12 upper-case hex digits, however the router and the API write it. */
const macKey = (mac: string): string => mac.replace(/[^0-9a-f]/gi, '').toUpperCase();

async function afterLogin(): Promise<void> {
  // A card typed during a flood, waiting for this sign-in: its pass first, then the router.
  const card = store.get('card');
  if (card && router?.mac) {
    store.set('card', null);
    el<HTMLInputElement>('voucher').value = card;
    show('voucher', false);
    return passFor(card);
  }
  const a = await api('GET', `/access/mine?nas_id=${encodeURIComponent(nasId)}`);
  const items = ((a?.status === 200 ? a.body.items : undefined) as MyCode[] | undefined) ?? [];
  const history = ((a?.status === 200 ? a.body.history : undefined) as Purchase[] | undefined) ?? [];
  if (!items.length && !history.length) return showForfaits();
  if (router?.mac && items.length) {
    const d = await api('GET', '/access/devices/mine');
    const devices = ((d?.status === 200 ? d.body.items : undefined) as { code: string; mac: string }[]) ?? [];
    const thisDevice = macKey(router.mac);
    rememberedFor = new Set(devices.filter((x) => macKey(x.mac) === thisDevice).map((x) => x.code));
  }
  mine = { items: items.sort((x, y) => y.seconds_remaining - x.seconds_remaining), history };
  renderMine();
  if (!items.length) return showForfaits();
  show('mine');
}

const item = (...children: (Node | string)[]): HTMLLIElement => {
  const li = document.createElement('li');
  li.append(...children);
  return li;
};
const line = (text: string, tag = 'small'): HTMLElement => {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
};
const dateText = (iso: string): string =>
  new Intl.DateTimeFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(iso));

function renderMine(): void {
  if (!mine) return;
  el('mine-list').replaceChildren(
    ...mine.items.map((c) => {
      const connect = document.createElement('button');
      connect.type = 'button';
      connect.textContent = t(lang, 'connect');
      connect.hidden = !router;
      connect.addEventListener('click', () => connectWith(c.code, connect));
      const forget = document.createElement('button');
      forget.type = 'button';
      forget.className = 'secondary';
      forget.textContent = t(lang, 'forget_device');
      forget.hidden = !rememberedFor.has(c.code);
      forget.addEventListener('click', () => void forgetMine(c.code));
      const topup = topupButton(c.code);
      return item(
        line(c.code, 'b'),
        line(c.forfait_name ?? ''),
        line(t(lang, 'remaining', { time: remainingText(lang, c.seconds_remaining) })),
        line(dataText(lang, c.bytes_remaining === null ? null : Math.floor(c.bytes_remaining / 1048576))),
        ...(c.expires_at ? [line(t(lang, 'mine_expires', { date: dateText(c.expires_at) }))] : []),
        ...(c.last_nas_id ? [line(t(lang, 'mine_hotspot', { nas: c.last_nas_id }))] : []),
        connect,
        topup,
        forget,
      );
    }),
  );
  el('history-list').replaceChildren(
    ...mine.history.map((p) => {
      const renew = document.createElement('button');
      renew.type = 'button';
      renew.className = 'secondary';
      renew.textContent = t(lang, 'renew');
      renew.addEventListener('click', () => void renewForfait(p.forfait_id));
      return item(
        line(p.forfait_name ?? p.code, 'b'),
        line(`${dateText(p.created_at)} · ${t(lang, p.active ? 'history_active' : 'history_ended')}`),
        renew,
        topupButton(p.code),
      );
    }),
  );
}

/** "Oublier cet appareil" on a code of the subscriber's: the device's next MAC login is refused. */
async function forgetMine(code: string): Promise<void> {
  quiet();
  if (!router?.mac) return;
  const a = await api(
    'DELETE',
    `/access/${encodeURIComponent(code)}/devices/${encodeURIComponent(router.mac)}`,
  );
  if (!a) return;
  if (a.status !== 200 && a.status !== 404) return say('err_server');
  rememberedFor.delete(code);
  remembered.set(code, router.mac, false);
  renderMine();
  say('device_forgotten');
}

/** "Recharger ce code": the forfaits step, whose payment adds the forfait to this code. */
function topupButton(code: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'secondary';
  b.textContent = t(lang, 'topup_code');
  b.addEventListener('click', async () => {
    quiet();
    await showForfaits();
    topupFor = code;
    say('topup_for', { code });
  });
  return b;
}

/** One tap: the same forfait, chosen on the payment step (the provider is the subscriber's). */
async function renewForfait(forfaitId: string): Promise<void> {
  quiet();
  topupFor = undefined;
  await showForfaits();
  const radio = el('forfaits').querySelector<HTMLInputElement>(`input[value="${CSS.escape(forfaitId)}"]`);
  if (radio) {
    radio.checked = true;
    radio.focus();
  }
}

async function showForfaits(): Promise<void> {
  show('forfaits');
  if (forfaits.length) return;
  // The hotspot's reseller's own forfaits first, then the platform's.
  const a = await api('GET', `/forfaits?page_size=100${nasId ? `&nas_id=${encodeURIComponent(nasId)}` : ''}`);
  if (a?.status !== 200) return;
  forfaits = (a.body.items as Forfait[] | undefined) ?? [];
  renderForfaits();
  const provider = store.get('pay-choice')?.split('/')[1];
  const radio = provider
    ? el('f-pay').querySelector<HTMLInputElement>(`input[name=provider][value="${CSS.escape(provider)}"]`)
    : null;
  if (radio) radio.checked = true;
}

function renderForfaits(): void {
  const box = el('forfaits');
  // The forfait on screen, else the one of the last payment tried: back from a refused payment,
  // the page is new and "Payer" must buy the same forfait again, not the first of the list.
  const picked =
    (box.querySelector('input:checked') as HTMLInputElement | null)?.value ??
    store.get('pay-choice')?.split('/')[0];
  box.replaceChildren(
    ...forfaits.map((f, i) => {
      const label = document.createElement('label');
      label.className = 'choice';
      const radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = 'forfait';
      radio.value = f.id;
      radio.checked = picked && forfaits.some((x) => x.id === picked) ? picked === f.id : i === 0;
      const offer = document.createElement('span');
      offer.className = 'offer';
      const name = document.createElement('b');
      name.textContent = f.name;
      const details = document.createElement('small');
      details.textContent = [
        durationText(lang, f.duration_hours),
        capText(lang, f.data_limit_mb),
        speedText(lang, f.mir_kbps),
      ].join(' · ');
      offer.append(name, details);
      const price = document.createElement('span');
      price.className = 'price';
      price.textContent = priceText(lang, f.price_fcfa);
      label.append(radio, offer, price);
      return label;
    }),
  );
}

// ---- 5a: mobile money ----
el('f-pay').addEventListener('submit', async (e) => {
  e.preventDefault();
  quiet();
  const form = el<HTMLFormElement>('f-pay');
  const forfait = (form.querySelector('input[name=forfait]:checked') as HTMLInputElement | null)?.value;
  const provider = (form.querySelector('input[name=provider]:checked') as HTMLInputElement | null)?.value;
  if (!forfait || !provider) return say('err_choose');
  // One key per choice: a retry after a lost answer opens no second payment.
  const choice = `${forfait}/${provider}${topupFor ? `/${topupFor}` : ''}`;
  let key = store.get('pay-key');
  if (!key || store.get('pay-choice') !== choice) {
    key = randomKey();
    store.set('pay-key', key);
    store.set('pay-choice', choice);
  }
  busy(form, true);
  const a = await api(
    'POST',
    '/payments/initiate',
    // The code is shown on this page (and kept in "time left"): no SMS for it.
    {
      forfait_id: forfait,
      provider,
      nas_id: nasId,
      code_delivery: 'screen',
      ...(topupFor ? { topup_code: topupFor } : {}),
    },
    { 'idempotency-key': key },
  );
  if (a?.status !== 201) {
    busy(form, false);
    // The code was revoked or refunded since: the next payment buys a code of its own.
    if (topupFor && (a?.status === 404 || a?.status === 409)) {
      topupFor = undefined;
      return say('err_topup');
    }
    if (a) say('err_server');
    return;
  }
  store.set('pay-key', null);
  location.href = String(a.body.payment_url);
});

async function waitForPayment(id: string): Promise<void> {
  show('wait');
  const started = Date.now();
  for (;;) {
    const a = await api('GET', `/payments/${encodeURIComponent(id)}/status`);
    const status = a?.status === 200 ? String(a.body.status) : undefined;
    if (status === 'completed') {
      history.replaceState(
        null,
        '',
        location.pathname + location.search.replace(/([?&])payment=[^&]*&?/, '$1'),
      );
      if (typeof a?.body.access_code === 'string') return showCode(a.body.access_code);
      return afterLogin();
    }
    if (status === 'failed' || status === 'expired' || a?.status === 404) {
      await showForfaits();
      return say(status === 'expired' ? 'err_payment_expired' : 'err_payment_failed');
    }
    if (!store.get('token')) return;
    // An aggregator can take minutes; the payment itself expires after half an hour.
    if (Date.now() - started > 30 * 60_000) {
      await showForfaits();
      return say('err_payment_expired');
    }
    await new Promise((r) => setTimeout(r, Date.now() - started < 60_000 ? 2000 : 5000));
  }
}

// ---- 5b: voucher ----
/** A refusal the check or a pass told, in words (an unknown reason reads as an unknown code). */
function sayRefusal(reason: string): void {
  const key = `err_${reason === 'unknown' ? 'unknown_code' : reason}`;
  say(key in STRINGS.fr ? (key as Key) : 'err_unknown_code');
}

/**
 * Signed in, on a router's page: the card is proven for this phone at this hotspot by a login
 * pass (`POST /access/pass`, within the account's budget of wrong codes), so the router lets it
 * in even while wrong codes flood the hotspot.
 */
async function passFor(code: string): Promise<void> {
  const a = await api('POST', '/access/pass', { nas_id: nasId, code, mac: router?.mac });
  if (!a) return;
  if (a.status === 200 && a.body.valid === true)
    return showCode(code, Number(a.body.seconds_remaining), false, a.body.first_use === true);
  if (a.status === 200) return sayRefusal(String(a.body.reason));
  say(a.status === 404 ? 'err_unknown_code' : 'err_server');
}

/**
 * Wrong codes flood this hotspot: a card the router has not seen on this phone gets in only with
 * a pass, which takes the subscriber's number (one SMS, none for a phone remembered). The card
 * waits in the session for the sign-in (`afterLogin`).
 */
function signInFor(code: string): void {
  store.set('card', code);
  show('phone');
  say('flood_sign_in');
}

el('f-voucher').addEventListener('submit', async (e) => {
  e.preventDefault();
  quiet();
  const form = el('f-voucher');
  const code = el<HTMLInputElement>('voucher').value.toUpperCase().replace(/[\s-]/g, '');
  if (!VOUCHER.test(code)) return say('err_voucher_format');
  busy(form, true);
  if (store.get('token') && router?.mac) {
    await passFor(code);
    busy(form, false);
    return;
  }
  const a = await api('POST', '/access/check', { nas_id: nasId, code });
  busy(form, false);
  if (!a) return;
  if (a.status !== 200) return say('err_voucher_format');
  const reason = String(a.body.reason);
  if (a.body.valid !== true && reason !== 'unconfirmed') return sayRefusal(reason);
  if (a.body.flood === true && router?.mac) return signInFor(code);
  if (a.body.valid === true) return showCode(code, Number(a.body.seconds_remaining));
  // The check does not say (a card never used, or too many codes from this address): the
  // router decides when the code is posted to it, and says why when it refuses.
  showCode(code, undefined, true);
});

// ---- 6: the access code, then the router's login ----
/** `fresh`: a printed card never used, confirmed by its pass (remembered from its first login on). */
function showCode(code: string, seconds?: number, unconfirmed = false, fresh = false): void {
  shown = {
    code,
    ...(seconds !== undefined ? { seconds } : {}),
    ...(unconfirmed ? { unconfirmed } : {}),
    ...(fresh ? { fresh } : {}),
  };
  store.set('code', code);
  el('code').textContent = code;
  const left = el('remaining');
  left.hidden = seconds === undefined && !unconfirmed;
  if (seconds !== undefined) left.textContent = t(lang, 'remaining', { time: remainingText(lang, seconds) });
  else if (unconfirmed) left.textContent = t(lang, 'checked_at_login');
  el('connect').hidden = !router;
  // Remembering needs the device's MAC, which only the router knows (MikroTik's `$(mac)`), and a
  // code the check confirmed (a printed card is remembered from its first login on).
  el('remember-box').hidden = !router?.mac || unconfirmed || fresh;
  el('forget').hidden = !router?.mac || !remembered.has(code, router.mac);
  el('no-router').hidden = !!router;
  el('buy-more').hidden = !store.get('token');
  show('code');
}

el('copy').addEventListener('click', async () => {
  const code = el('code').textContent ?? '';
  try {
    await navigator.clipboard.writeText(code);
  } catch {
    // No clipboard API on a plain-http page: select the code so that the phone offers to copy.
    getSelection()?.selectAllChildren(el('code'));
    document.execCommand('copy');
  }
  el('copy').textContent = t(lang, 'copied');
});

function logIn(login: NasLogin): void {
  if (login.method === 'get') {
    location.href = login.url;
    return;
  }
  const form = document.createElement('form');
  form.method = 'post';
  form.action = login.action;
  for (const [name, value] of Object.entries(login.fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}

function connectWith(code: string, button: HTMLElement): void {
  const login = router && nasLogin(router, code);
  if (!login) {
    say('err_server');
    return;
  }
  button.textContent = t(lang, 'connecting');
  store.set('code', null);
  // Sent without a pass: should the router refuse it for a flood, the page comes back to get one.
  store.set('sent', store.get('token') ? null : code);
  logIn(login);
}

/**
 * "Reconnecter cet appareil automatiquement", ticked: the device's MAC is remembered for the code
 * (with this consent only) before the code goes to the router; from then on the router lets it
 * in by its MAC while the code lasts. False when the page must not go on to the router.
 */
async function rememberDevice(code: string): Promise<boolean> {
  const box = el<HTMLInputElement>('remember');
  if (!box.checked || !router?.mac) return true;
  const a = await api('POST', '/access/devices', { nas_id: nasId, code, mac: router.mac });
  if (!a) return false;
  if (a.status === 409 && errorCode(a) === 'ERR_DEVICE_LIMIT') {
    box.checked = false;
    say('err_remember_limit');
    return false;
  }
  if (a.status === 200 || a.status === 201) remembered.set(code, router.mac, true);
  // Any other refusal is the code's own: the router says why when it is posted.
  return true;
}

el('connect').addEventListener('click', async () => {
  quiet();
  const code = el('code').textContent ?? '';
  const button = el<HTMLButtonElement>('connect');
  button.disabled = true;
  const go = await rememberDevice(code);
  button.disabled = false;
  if (go) connectWith(code, button);
});

// "Oublier cet appareil": one tap, by whoever holds the code; its next MAC login is refused.
el('forget').addEventListener('click', async () => {
  quiet();
  if (!router?.mac) return;
  const a = await api('POST', '/access/devices/forget', {
    nas_id: nasId,
    code: el('code').textContent ?? '',
    mac: router.mac,
  });
  if (a?.status !== 200) {
    if (a) say('err_server');
    return;
  }
  el<HTMLInputElement>('remember').checked = false;
  remembered.set(el('code').textContent ?? '', router.mac, false);
  el('forget').hidden = true;
  say(a.body.forgotten === true ? 'device_forgotten' : 'device_not_remembered');
});

// ---- moving between steps ----
const toVoucher = () => {
  quiet();
  show('voucher');
};
el('to-voucher').addEventListener('click', toVoucher);
el('to-voucher-2').addEventListener('click', toVoucher);
el('voucher-back').addEventListener('click', () => {
  quiet();
  if (store.get('token')) void showForfaits();
  else show('phone');
});
el('to-phone').addEventListener('click', () => {
  quiet();
  show('phone');
});
el('mine-buy').addEventListener('click', () => {
  quiet();
  void showForfaits();
});
el('buy-more').addEventListener('click', () => {
  quiet();
  shown = undefined;
  store.set('code', null);
  void showForfaits();
});
el('lang').addEventListener('click', (e) => {
  e.preventDefault();
  const to: Lang = lang === 'fr' ? 'en' : 'fr';
  store.set('lang', to);
  translate(to);
  const url = new URL(location.href);
  url.searchParams.set('lang', to);
  history.replaceState(null, '', url.href);
});
// A logo that does not load is never shown broken: the reseller's name beside it stays (the
// image's alt is empty, the name being written next to it). It may have failed before this
// deferred script ran (2G): then its error event is gone, and it is complete with no pixels.
const logo = el('logo') as HTMLImageElement;
logo.addEventListener('error', () => {
  logo.hidden = true;
});
if (logo.complete && logo.naturalWidth === 0) logo.hidden = true;

// ---- where the subscriber is in the flow ----
const keptLang = store.get('lang');
if (!here.searchParams.has('lang') && (keptLang === 'fr' || keptLang === 'en') && keptLang !== lang) {
  translate(keptLang);
}
if (routerError && !floodRefused) {
  const box = el('router-error');
  box.textContent = t(lang, routerError);
  box.hidden = false;
}
// Ready: the forms' buttons, disabled in the HTML until now, may submit (through the handlers).
for (const b of document.querySelectorAll<HTMLButtonElement>('form button[disabled]')) b.disabled = false;
const payment = here.searchParams.get('payment');
const keptCode = store.get('code');
// A printed voucher's QR code opens `?voucher=CODE`: the voucher form, filled, waiting for a tap.
const printed = (here.searchParams.get('voucher') ?? '').toUpperCase().replace(/[\s-]/g, '');
if (reloading) {
  // The page is being replaced; nothing to start.
} else if (VOUCHER.test(printed)) {
  el<HTMLInputElement>('voucher').value = printed;
  show('voucher');
} else if (payment && store.get('token')) void waitForPayment(payment);
else if (keptCode) showCode(keptCode);
else if (store.get('token')) void afterLogin();
else if (floodRefused) {
  store.set('sent', null);
  signInFor(floodRefused);
  // A remembered phone needs no SMS: its session comes, then the pass.
  void deviceLogin();
} else {
  show('phone', false);
  void deviceLogin();
}
