// The OTP's rules: its limits, a phone number read and normalised, the code drawn and hashed, its SMS text.

import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { phonePlans } from '../core/lazy-phone.js';
import { nationalE164, nationalReadings, servedE164 } from '../core/phone.mjs';

/** Limits of the OTP flow (docs/decisions.md, "OTP" and "Hardening"). */
export const OTP = {
  digits: 6,
  lifetimeMs: 300_000,
  /** Guesses (with the request's `otp_token`) compared per code; the last wrong one burns that code only. */
  maxFails: 5,
  /**
   * For this long after a code was burnt, each new code of the number is compared once: its
   * owner, who has the SMS, needs one try, and a guesser asking code after code gets one guess
   * per SMS instead of five. Nothing is refused: a number is never locked out.
   */
  afterBurnMs: 900_000,
  guessesAfterBurn: 1,
  requestsPerWindow: 3,
  windowMs: 60_000,
  /**
   * Verifications without the request's `otp_token`, per number in any `guessWindowMs`: they
   * count against no code (so they cannot burn it nor lock the number out), this bounds them.
   */
  guessesWithoutToken: 5,
  guessWindowMs: 900_000,
} as const;

/**
 * The E.164 shape of what a person typed (spaces, dots, dashes and brackets removed), or
 * undefined. Enough to find an account: verification uses only this, so that its function
 * does not carry the numbering-plan metadata.
 */
export function compactMsisdn(input: string): string | undefined {
  const compact = input.replace(/[\s.\-()]/g, '');
  return /^\+[1-9]\d{7,14}$/.test(compact) ? compact : undefined;
}

/**
 * An E.164 number that is also valid in its country's numbering plan, that country being one the
 * platform serves (functions/core/phone.mts), or undefined.
 */
function normalizeMsisdn(input: string, country?: string): string | undefined {
  return normalizeWith({ servedE164, nationalE164 }, input, country);
}

/** The plans' two readings of a number (functions/core/phone.mts), bundled in or loaded. */
interface Plans {
  servedE164(compact: string): string | undefined;
  nationalE164(typed: string, country: string): string | undefined;
}

function normalizeWith(plans: Plans, input: string, country?: string): string | undefined {
  const compact = compactMsisdn(input);
  if (compact) return plans.servedE164(compact);
  // A number written the national way, in the country of the reseller it is typed for.
  return country && !input.trim().startsWith('+') ? plans.nationalE164(input, country) : undefined;
}

/** `SUB-` and the MSISDN's digits. */
export const subscriberRef = (msisdn: string): string => `SUB-${msisdn.replace(/\D/g, '')}`;

/** Six digits from the CSPRNG, leading zeros kept. */
export const generateCode = (): string =>
  randomInt(0, 10 ** OTP.digits)
    .toString()
    .padStart(OTP.digits, '0');

/**
 * Keyed hash of a code, bound to the account's UUID and to this issuance: a stored hash is
 * useless without the pepper, and cannot be replayed for another account or code.
 */
export function hashCode(pepper: string, subjectId: string, otpToken: string, code: string): string {
  return createHmac('sha256', pepper).update(`${subjectId}:${otpToken}:${code}`).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesMatch(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}

export const smsText = (code: string): string =>
  `Votre code de connexion WiFi est ${code}. Il expire dans 5 minutes. Ne le partagez avec personne.`;

/**
 * The number in E.164, or 400 ERR_MSISDN_INVALID. Here, with the parsing, rather than in the OTP
 * service: onboarding and the erase command check a number without carrying the service (its
 * SMS client, devices and limits) into their bundles.
 */
export function requireMsisdn(input: string, country?: string): string {
  return checked(normalizeMsisdn(input, country));
}

/**
 * The number a person typed at a login, where the country is a guess (the browser's, the last
 * login's): read in `hint` first; a national number not valid there is taken in the one other
 * served country where it is valid ("77 555 66 77" typed on a phone set to Côte d'Ivoire is
 * Senegal's), and refused when none or several are. 400 ERR_MSISDN_INVALID.
 */
export function requireLoginMsisdn(input: string, hint: string): string {
  const readings = nationalReadings(input);
  return checked(normalizeMsisdn(input, hint) ?? (readings.length === 1 ? readings[0] : undefined));
}

/**
 * `normalizeMsisdn` for the paths that check a number now and then (onboarding a reseller,
 * erasing a subscriber, an agent's creation and the buyer's number of its sale): the plans are
 * loaded by the first check (`phonePlans`), not at the function's start.
 */
export async function normalizeMsisdnLoaded(input: string, country?: string): Promise<string | undefined> {
  const { servedE164, nationalE164 } = await phonePlans();
  return normalizeWith({ servedE164, nationalE164 }, input, country);
}

/** `requireMsisdn` with the plans loaded by the first check (`normalizeMsisdnLoaded`). */
export async function requireMsisdnLoaded(input: string, country?: string): Promise<string> {
  return checked(await normalizeMsisdnLoaded(input, country));
}

function checked(msisdn: string | undefined): string {
  if (!msisdn) {
    throw new AppError('ERR_MSISDN_INVALID', 'msisdn must be an international number: + and 8 to 15 digits', {
      details: [{ path: 'body.msisdn', message: 'not a number of a served country' }],
    });
  }
  return msisdn;
}
