/**
 * What the API's refusals say to the reader, from their stable codes (`error.code`), never from
 * the API's own English message: French and English for every code the API can answer
 * (test/unit/console-errors.test.ts holds this table against functions/core/errors.ts and the
 * OpenAPI document). Data only (no DOM), so that the test can read it.
 */
type Words = { fr: string; en: string };

export const ERROR_TEXT: Record<string, Words> = {
  ERR_VALIDATION: {
    fr: 'Certaines valeurs sont refusées : vérifiez le formulaire.',
    en: 'Some values were refused: check the form.',
  },
  ERR_FORFAIT_OUT_OF_BOUNDS: {
    fr: 'Hors des limites fixées par la plateforme.',
    en: 'Outside the limits the platform sets.',
  },
  ERR_MSISDN_INVALID: {
    fr: 'Numéro de téléphone invalide pour ce pays.',
    en: 'Invalid phone number for this country.',
  },
  ERR_UNAUTHENTICATED: {
    fr: 'Session terminée : reconnectez-vous.',
    en: 'Session ended: log in again.',
  },
  ERR_SIGNATURE_INVALID: {
    fr: 'Signature du prestataire de paiement invalide.',
    en: "The payment provider's signature is invalid.",
  },
  ERR_SIGNATURE_STALE: {
    fr: 'Notification de paiement trop ancienne.',
    en: 'Payment notification too old.',
  },
  ERR_OTP_INVALID: { fr: 'Code incorrect ou expiré.', en: 'Wrong or expired code.' },
  ERR_OTP_EXPIRED: {
    fr: 'Code expiré : demandez-en un nouveau.',
    en: 'Code expired: ask for a new one.',
  },
  ERR_FORBIDDEN: {
    fr: 'Votre compte n’a pas accès à ceci.',
    en: 'Your account has no access to this.',
  },
  ERR_NOT_FOUND: {
    fr: 'Introuvable : peut-être supprimé entre-temps.',
    en: 'Not found: perhaps removed meanwhile.',
  },
  ERR_METHOD_NOT_ALLOWED: { fr: 'Action impossible ici.', en: 'This cannot be done here.' },
  ERR_CONFLICT: {
    fr: 'Déjà fait ou modifié entre-temps : rechargez la page et vérifiez.',
    en: 'Already done or changed meanwhile: reload the page and check.',
  },
  ERR_DUPLICATE_NAS_ID: {
    fr: 'Ce revendeur, ou un hotspot de ce nom, existe déjà.',
    en: 'This reseller, or a hotspot of that name, exists already.',
  },
  ERR_VLAN_POOL_EXHAUSTED: {
    fr: 'Plus aucun VLAN libre : libérez-en un d’abord.',
    en: 'No VLAN left: release one first.',
  },
  ERR_IDEMPOTENCY_MISMATCH: {
    fr: 'Cette demande a déjà été envoyée avec d’autres valeurs.',
    en: 'This request was already sent with other values.',
  },
  ERR_NOTIFICATION_REPLAYED: {
    fr: 'Notification de paiement déjà traitée.',
    en: 'Payment notification already handled.',
  },
  ERR_AMOUNT_MISMATCH: {
    fr: 'Le montant ne correspond pas au paiement.',
    en: 'The amount does not match the payment.',
  },
  ERR_CURRENCY_MISMATCH: {
    fr: 'La devise ne correspond pas au paiement.',
    en: 'The currency does not match the payment.',
  },
  ERR_AGENT_FLOAT_EXHAUSTED: {
    fr: 'Crédit épuisé : demandez une recharge à votre revendeur.',
    en: 'Float used up: ask your reseller for more.',
  },
  ERR_AGENT_STOCK_EXHAUSTED: {
    fr: 'Stock épuisé pour ce forfait.',
    en: 'No stock left for this forfait.',
  },
  ERR_AGENT_CASH_OVER_OWED: {
    fr: 'Plus que ce que l’agent doit : vérifiez le montant.',
    en: 'More than the agent owes: check the amount.',
  },
  ERR_CODE_NOT_LIVE: {
    fr: 'Ce code ne peut pas être rechargé : révoqué, remboursé, ou jamais vendu.',
    en: 'This code cannot be topped up: revoked, refunded, or never sold.',
  },
  ERR_UNDO_TOO_LATE: {
    fr: 'Trop tard pour annuler : une remise s’annule une seule fois, dans les cinq minutes.',
    en: 'Too late to undo: a handover is undone once, within five minutes.',
  },
  ERR_CODE_IN_USE: {
    fr: 'Ce code a déjà servi : la vente ne peut plus être annulée.',
    en: 'This code was used already: the sale can no longer be undone.',
  },
  ERR_DEVICE_LIMIT: {
    fr: 'Nombre maximal d’appareils atteint pour ce code.',
    en: 'Maximum number of devices reached for this code.',
  },
  ERR_FORFAIT_LIMIT: {
    fr: 'Nombre maximal de forfaits atteint.',
    en: 'Maximum number of plans reached.',
  },
  ERR_USERNAME_TAKEN: {
    fr: 'Cet identifiant PPPoE est déjà pris : choisissez-en un autre.',
    en: 'This PPPoE user name is taken: choose another.',
  },
  ERR_PERIOD_SOLD: {
    fr: 'Cette période est déjà payée : la liste est à jour.',
    en: 'This period is paid already: the list is up to date.',
  },
  ERR_PAYLOAD_TOO_LARGE: { fr: 'Envoi trop volumineux.', en: 'Too large to send.' },
  ERR_UNSUPPORTED_MEDIA_TYPE: { fr: 'Format de fichier refusé.', en: 'File format refused.' },
  ERR_RATE_LIMITED: {
    fr: 'Trop de tentatives : patientez un instant.',
    en: 'Too many attempts: wait a moment.',
  },
  ERR_INTERNAL: {
    fr: 'Erreur du service : réessayez dans un instant.',
    en: 'Service error: try again in a moment.',
  },
  ERR_RADIUS_CREDENTIALS: {
    fr: 'Le serveur RADIUS est mal configuré : prévenez l’opérateur.',
    en: 'The RADIUS server is misconfigured: tell the operator.',
  },
  ERR_UPSTREAM: {
    fr: 'Un service extérieur (paiement, SMS) ne répond pas : réessayez.',
    en: 'An outside service (payment, SMS) does not answer: try again.',
  },
  ERR_UNAVAILABLE: {
    fr: 'Service occupé : réessayez dans un instant.',
    en: 'Service busy: try again in a moment.',
  },
};

/**
 * What a refused field needs, by its name (the last part of the API's `details[].path`): the
 * API's own words for it are English and technical ("must be a colour #rrggbb").
 */
export const FIELD_TEXT: Record<string, Words> = {
  primary_color: {
    fr: 'Une couleur au format #rrggbb, par exemple #0f6cbd.',
    en: 'A colour written #rrggbb, e.g. #0f6cbd.',
  },
  logo_url: {
    fr: 'Une adresse https:// d’un site public (ou envoyez une image).',
    en: 'An https:// address on a public site (or upload an image).',
  },
  image: {
    fr: 'Une image PNG, JPEG ou WebP de 16 à 512 pixels de côté.',
    en: 'A PNG, JPEG or WebP image, 16 to 512 pixels a side.',
  },
  custom_css: {
    fr: 'CSS refusé : ni @import, ni url() hors images data:, 10 Ko au plus.',
    en: 'CSS refused: no @import, no url() but data: images, 10 KB at most.',
  },
  banner_rotation_seconds: { fr: 'Entre 3 et 600 secondes.', en: 'Between 3 and 600 seconds.' },
  msisdn: {
    fr: 'Numéro invalide : tapez-le comme vous l’écrivez, par exemple 07 12 34 56 78.',
    en: 'Invalid number: type it as you write it, e.g. 07 12 34 56 78.',
  },
  name: {
    fr: 'À remplir, 64 caractères au plus.',
    en: 'Required, 64 characters at most.',
  },
  city: { fr: 'À remplir.', en: 'Required.' },
  latitude: { fr: 'Un nombre entre -90 et 90, par exemple 5.35.', en: 'A number from -90 to 90, e.g. 5.35.' },
  longitude: {
    fr: 'Un nombre entre -180 et 180, par exemple -4.01.',
    en: 'A number from -180 to 180, e.g. -4.01.',
  },
  source_ip: {
    fr: 'L’adresse IP publique fixe du routeur, par exemple 41.202.10.5.',
    en: "The router's fixed public IP address, e.g. 41.202.10.5.",
  },
  count: { fr: 'Un nombre entier positif.', en: 'A whole positive number.' },
  n: { fr: 'Entre 1 et 1 000 codes.', en: 'From 1 to 1,000 codes.' },
};
FIELD_TEXT.secondary_color = FIELD_TEXT.primary_color as Words;
for (const same of ['send_to', 'to', 'phone']) FIELD_TEXT[same] = FIELD_TEXT.msisdn as Words;

/** Any other refused field. */
export const FIELD_REFUSED: Words = {
  fr: 'Valeur refusée : vérifiez ce champ.',
  en: 'Value refused: check this field.',
};

/** The API's error body, as far as its words are concerned. */
interface Refusal {
  error?: { code?: string; details?: { path: string }[] };
}

/** What a refusal says, from its code (an unknown one reads as a refused form). */
export function refusalText(err: Refusal, status: number | undefined, lang: 'fr' | 'en'): string {
  const code = err.error?.code ?? (status === 404 ? 'ERR_NOT_FOUND' : status === 403 ? 'ERR_FORBIDDEN' : '');
  return (ERROR_TEXT[code] ?? (ERROR_TEXT.ERR_VALIDATION as Words))[lang];
}

/** What each refused field needs, by its path (`body.primary_color` -> `primary_color`); `_` the refusal's own. */
export function refusedFields(err: Refusal, lang: 'fr' | 'en'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of err.error?.details ?? []) {
    const path = d.path.replace(/^(body|query)\.?/, '');
    out[path || '_'] = (FIELD_TEXT[path.split('.').pop() ?? ''] ?? FIELD_REFUSED)[lang];
  }
  if (err.error && !out._) out._ = refusalText(err, undefined, lang);
  return out;
}
