// Every sentence of the captive portal, in French (the default) and English, and how prices, times and data read.

/**
 * Every sentence of the captive portal, in French (the default) and English. The page's Lambda
 * writes the HTML in one language; the page's script carries both, to switch in place and to
 * word the answers of the API for a subscriber.
 */
export type Lang = 'fr' | 'en';

const fr = {
  title: 'Connexion Wi-Fi',
  welcome_to: 'Bienvenue chez',
  intro: 'Recevez un code par SMS pour choisir un forfait, ou entrez votre ticket.',
  /** The language switch: the other language's name, in that language. */
  other_lang: 'English',
  country: 'Pays',
  phone: 'Votre numéro de téléphone',
  phone_hint: 'Exemple : {example}',
  phone_submit: 'Recevoir le code par SMS',
  have_voucher: 'J’ai un ticket',
  otp: 'Code reçu par SMS (6 chiffres)',
  otp_sent: 'Code envoyé au {msisdn}.',
  otp_submit: 'Valider',
  change_number: 'Changer de numéro',
  forfaits: 'Choisissez un forfait',
  provider: 'Payer avec',
  pay: 'Payer',
  voucher_title: 'Entrez votre ticket',
  voucher: 'Code du ticket (8 à 12 caractères)',
  voucher_submit: 'Valider le ticket',
  back: 'Retour',
  wait_title: 'Paiement en cours…',
  wait_text: 'Confirmez le paiement sur votre téléphone. Cette page se met à jour toute seule.',
  code_title: 'Votre code d’accès',
  code_sms: 'Notez-le : il vous servira pour vous reconnecter.',
  copy: 'Copier le code',
  copied: 'Code copié',
  connect: 'Se connecter',
  connecting: 'Connexion…',
  buy_more: 'Acheter un autre forfait',
  remaining: 'Reste : {time}',
  checked_at_login: 'Le routeur vérifie ce code quand vous vous connectez.',
  loading: 'Chargement…',
  no_router:
    'Pour vous connecter, rejoignez le Wi-Fi du hotspot puis ouvrez n’importe quel site : cette page reviendra.',
  hours: '{n} heure|{n} heures',
  days: '{n} jour|{n} jours',
  minutes: '{n} min',
  data: '{n} de données',
  data_unlimited: 'Données illimitées',
  speed: 'jusqu’à {n}',
  err_msisdn: 'Ce numéro n’est pas valide. Vérifiez l’indicatif et le numéro.',
  err_otp_invalid: 'Ce code n’est pas le bon. Vérifiez le SMS et réessayez.',
  err_otp_expired: 'Ce code a expiré. Demandez-en un nouveau.',
  err_rate_limited: 'Trop de demandes. Patientez quelques minutes puis réessayez.',
  err_session: 'Votre session a expiré. Entrez à nouveau votre numéro.',
  err_voucher_format:
    'Un ticket a 8 à 12 caractères (lettres et chiffres, sans 0, O, 1, I ni L). Vérifiez ce que vous avez tapé.',
  err_unknown_code: 'Ce ticket n’existe pas. Vérifiez le code.',
  err_wrong_hotspot: 'Ce ticket est valable dans un autre hotspot, pas ici.',
  err_expired: 'Ce ticket ou forfait a expiré.',
  err_data_used: 'Toutes les données de ce forfait ont été utilisées.',
  err_device_limit: 'Ce code est déjà utilisé sur trop d’appareils.',
  err_payment_failed:
    'Le paiement a été refusé. Aucun montant n’a été débité. Réessayez ou changez de moyen.',
  err_payment_expired: 'Le paiement n’a pas été confirmé à temps. Recommencez.',
  err_network: 'La connexion a échoué. Vérifiez le réseau et réessayez.',
  err_server: 'Le service ne répond pas pour le moment. Réessayez dans un instant.',
  err_choose: 'Choisissez un forfait et un moyen de paiement.',
  mine_title: 'Retrouver mon code',
  mine_intro: 'Vos codes encore valables ici. Touchez « Se connecter » pour l’utiliser.',
  mine_expires: 'Valable jusqu’au {date}',
  mine_hotspot: 'Dernier hotspot : {nas}',
  history_title: 'Mes achats',
  history_active: 'en cours',
  history_ended: 'terminé',
  renew: 'Racheter ce forfait',
  topup_code: 'Recharger ce code',
  topup_for:
    'Recharge du code {code} : choisissez un forfait, son temps et ses données s’ajoutent à ce même code.',
  err_topup: 'Ce code ne peut plus être rechargé. Choisissez un forfait pour un nouveau code.',
  err_router_credentials: 'Le routeur a refusé ce code. Vérifiez-le et réessayez.',
  err_router_retry: 'Le routeur demande de recommencer. Rechargez la page puis reconnectez-vous.',
  err_router_unavailable:
    'Le routeur ne peut pas vérifier les codes pour le moment. Réessayez dans un instant.',
  remember_device: 'Reconnecter cet appareil automatiquement',
  remember_hint:
    'Tant que ce forfait dure, ce téléphone se reconnecte ici sans code. Son adresse MAC est gardée jusqu’à la fin du forfait, ou jusqu’à ce que vous l’oubliiez.',
  forget_device: 'Oublier cet appareil',
  device_forgotten: 'Cet appareil ne se reconnectera plus automatiquement.',
  device_not_remembered: 'Cet appareil n’était pas mémorisé pour ce code.',
  err_remember_limit:
    'Ce code mémorise déjà le nombre maximal d’appareils. Oubliez-en un, ou connectez-vous sans cocher la case.',
  err_mac_unknown: 'Cet appareil n’est pas reconnu automatiquement : connectez-vous avec votre code.',
  err_too_many_codes:
    'Trop de codes faux ont été essayés ici : ce code ne peut pas être vérifié pour le moment. Réessayez dans quelques minutes, ou payez par mobile money.',
  flood_sign_in:
    'Beaucoup de codes faux sont essayés sur ce hotspot en ce moment. Confirmez votre numéro par SMS : votre ticket sera alors accepté sur ce téléphone.',
  err_router_generic: 'Le routeur n’a pas pu vous connecter. Réessayez.',
  err_foreign_router:
    'Cette page ne vient pas du routeur de ce hotspot : aucun code ne sera envoyé. Reconnectez-vous au Wi-Fi du hotspot.',
} as const;

export type Key = keyof typeof fr;

const en: Record<Key, string> = {
  title: 'Wi-Fi login',
  welcome_to: 'Welcome to',
  intro: 'Get a code by SMS to choose a plan, or type your voucher.',
  other_lang: 'Français',
  country: 'Country',
  phone: 'Your phone number',
  phone_hint: 'Example: {example}',
  phone_submit: 'Send me a code by SMS',
  have_voucher: 'I have a voucher',
  otp: 'Code received by SMS (6 digits)',
  otp_sent: 'Code sent to {msisdn}.',
  otp_submit: 'Confirm',
  change_number: 'Change number',
  forfaits: 'Choose a plan',
  provider: 'Pay with',
  pay: 'Pay',
  voucher_title: 'Type your voucher',
  voucher: 'Voucher code (8 to 12 characters)',
  voucher_submit: 'Check the voucher',
  back: 'Back',
  wait_title: 'Payment in progress…',
  wait_text: 'Confirm the payment on your phone. This page updates by itself.',
  code_title: 'Your access code',
  code_sms: 'Write it down: you need it to connect again.',
  copy: 'Copy the code',
  copied: 'Code copied',
  connect: 'Connect',
  connecting: 'Connecting…',
  buy_more: 'Buy another plan',
  remaining: 'Left: {time}',
  checked_at_login: 'The router checks this code when you connect.',
  loading: 'Loading…',
  no_router: 'To connect, join the hotspot’s Wi-Fi and open any website: this page will come back.',
  hours: '{n} hour|{n} hours',
  days: '{n} day|{n} days',
  minutes: '{n} min',
  data: '{n} of data',
  data_unlimited: 'Unlimited data',
  speed: 'up to {n}',
  err_msisdn: 'This number is not valid. Check the country code and the number.',
  err_otp_invalid: 'This code is not the right one. Check the SMS and try again.',
  err_otp_expired: 'This code has expired. Ask for a new one.',
  err_rate_limited: 'Too many requests. Wait a few minutes and try again.',
  err_session: 'Your session has expired. Type your number again.',
  err_voucher_format:
    'A voucher has 8 to 12 characters (letters and digits, no 0, O, 1, I or L). Check what you typed.',
  err_unknown_code: 'This voucher does not exist. Check the code.',
  err_wrong_hotspot: 'This voucher is for another hotspot, not this one.',
  err_expired: 'This voucher or plan has expired.',
  err_data_used: 'All the data of this plan has been used.',
  err_device_limit: 'This code is already in use on too many devices.',
  err_payment_failed: 'The payment was refused. Nothing was charged. Try again or use another method.',
  err_payment_expired: 'The payment was not confirmed in time. Start again.',
  err_network: 'The connection failed. Check the network and try again.',
  err_server: 'The service is not answering right now. Try again in a moment.',
  err_choose: 'Choose a plan and a payment method.',
  mine_title: 'Find my code',
  mine_intro: 'Your codes still valid here. Tap “Connect” to use one.',
  mine_expires: 'Valid until {date}',
  mine_hotspot: 'Last hotspot: {nas}',
  history_title: 'My purchases',
  history_active: 'active',
  history_ended: 'ended',
  renew: 'Buy this plan again',
  topup_code: 'Top up this code',
  topup_for: 'Top-up of code {code}: pick a plan, its time and data are added to this same code.',
  err_topup: 'This code can no longer be topped up. Pick a plan for a new code.',
  err_router_credentials: 'The router refused this code. Check it and try again.',
  err_router_retry: 'The router asks to start again. Reload the page and connect again.',
  err_router_unavailable: 'The router cannot check codes right now. Try again in a moment.',
  remember_device: 'Reconnect this device automatically',
  remember_hint:
    'While this plan lasts, this phone reconnects here without a code. Its MAC address is kept until the plan ends, or until you forget it.',
  forget_device: 'Forget this device',
  device_forgotten: 'This device will no longer reconnect automatically.',
  device_not_remembered: 'This device was not remembered for this code.',
  err_remember_limit:
    'This code already remembers as many devices as it allows. Forget one, or connect without ticking the box.',
  err_mac_unknown: 'This device is not recognised automatically: connect with your code.',
  err_too_many_codes:
    'Too many wrong codes were tried here: this code cannot be checked for now. Try again in a few minutes, or pay by mobile money.',
  flood_sign_in:
    'Many wrong codes are being tried at this hotspot right now. Confirm your number by SMS: your voucher will then be accepted on this phone.',
  err_router_generic: 'The router could not connect you. Try again.',
  err_foreign_router:
    'This page did not come from this hotspot’s router: no code will be sent. Join the hotspot’s Wi-Fi again.',
};

export const STRINGS: Record<Lang, Record<Key, string>> = { fr, en };

/** The mobile-money providers, in the order the page offers them. */
export const PROVIDERS = [
  ['orange_money', 'Orange Money'],
  ['mtn_momo', 'MTN MoMo'],
  ['moov_money', 'Moov Money'],
  ['wave', 'Wave'],
] as const;

/** A sentence with `{name}` filled in; `a|b` picks singular or plural by `n`. */
export function t(lang: Lang, key: Key, vars: Record<string, string | number> = {}): string {
  let s = STRINGS[lang][key];
  if (s.includes('|')) {
    const [one, many] = s.split('|') as [string, string];
    s = Number(vars.n) > 1 ? many : one;
  }
  return s.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** `fr` or `en` from `?lang=`, else from Accept-Language by preference, else French. */
export function pickLang(explicit: string | undefined, acceptLanguage: string | undefined): Lang {
  if (explicit === 'fr' || explicit === 'en') return explicit;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(/q=([\d.]+)/.exec(params.join(';'))?.[1] ?? 1);
      return { lang: tag.split('-')[0] ?? '', q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((x) => x.q > 0 && (x.lang === 'fr' || x.lang === 'en'))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return (ranked[0]?.lang as Lang | undefined) ?? 'fr';
}

const grouped = (lang: Lang, n: number): string =>
  new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-GB').format(n);

/** The unit stays with its number (a no-break space): a price never wraps between the two. */
export const priceText = (lang: Lang, fcfa: number): string => `${grouped(lang, fcfa)}\u00a0FCFA`;

export function durationText(lang: Lang, hours: number): string {
  return hours >= 24 && hours % 24 === 0
    ? t(lang, 'days', { n: hours / 24 })
    : t(lang, 'hours', { n: hours });
}

/** Megabytes as a subscriber reads them: `300 Mo`, `1,5 Go` (`MB`, `GB` in English). */
function sizeText(lang: Lang, mb: number): string {
  const [m, g] = lang === 'fr' ? ['Mo', 'Go'] : ['MB', 'GB'];
  if (mb < 1024) return `${grouped(lang, mb)}\u00a0${m}`;
  return `${grouped(lang, Math.round((mb / 1024) * 10) / 10)}\u00a0${g}`;
}

/** Data left on a code: `null` is a code without a cap; 0 is a cap used up. */
export const dataText = (lang: Lang, mb: number | null | undefined): string =>
  mb === null || mb === undefined ? t(lang, 'data_unlimited') : t(lang, 'data', { n: sizeText(lang, mb) });

/** A forfait's data cap: 0 (as the API and the reseller's form write "no cap") reads "unlimited". */
export const capText = (lang: Lang, mb: number | null | undefined): string => dataText(lang, mb ? mb : null);

export const speedText = (lang: Lang, kbps: number): string =>
  t(lang, 'speed', {
    // Forfaits are set in multiples of 1024 kbit/s: 4096 reads as 4 Mbit/s.
    n:
      kbps >= 1024
        ? `${grouped(lang, Math.round((kbps / 1024) * 10) / 10)}\u00a0Mbit/s`
        : `${kbps}\u00a0kbit/s`,
  });

/** Time left as `2 jours 3 heures`, `3 heures 20 min` or `20 min`. */
export function remainingText(lang: Lang, seconds: number): string {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const parts: string[] = [];
  if (days) parts.push(t(lang, 'days', { n: days }));
  if (hours) parts.push(t(lang, 'hours', { n: hours }));
  if (!days) parts.push(t(lang, 'minutes', { n: minutes % 60 }));
  return parts.join(' ');
}
