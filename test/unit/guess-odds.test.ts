import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIN_RANDOM, VOUCHER_ALPHABET, VOUCHER_LENGTH } from '../../functions/billing/codes.js';
import { GUESS_BUDGETS } from '../../functions/radius/guesses.js';
import type { BudgetWindow } from '../../functions/store/rate-limit.js';
import { settingsFromContext } from '../../lib/hotspot-stack.js';

/**
 * docs/security.md's guessing odds, computed from the budgets, the codes' alphabet and random
 * length and the stage's default throttle as the code has them: a change of any of them fails
 * here until the table says what it leaves.
 */
const {
  account: ACCOUNT_GUESSES,
  addressAll: ADDRESS_ALL_GUESSES,
  device: DEVICE_GUESSES,
  nas: NAS_GUESSES,
} = GUESS_BUDGETS;
const YEAR_MS = 365 * 24 * 3600_000;
const answersAYear = (b: BudgetWindow) => b.limit * (YEAR_MS / b.windowMs);
const space = (random: number) => VOUCHER_ALPHABET.length ** random;
const throttle = settingsFromContext(() => undefined).throttleRate;
const atThrottle = throttle * (YEAR_MS / 1000);

/** Two significant figures; thousands with commas. */
function figure(x: number): string {
  const rounded = Number(x.toPrecision(2));
  return rounded >= 1000 ? rounded.toLocaleString('en-US') : String(rounded);
}
const count = (n: number) => n.toLocaleString('en-US');

const row = (who: string, what: string, answers: string, found: (stock: number) => number) =>
  `| ${who} | ${what} | ${answers} | ${figure(found(5_000))} | ${figure(found(50_000))} |`;

describe("docs/security.md's guessing odds", () => {
  const doc = readFileSync('docs/security.md', 'utf8');
  const card = space(MIN_RANDOM);

  it('are computed from the budgets, the codes and the throttle in the code', () => {
    // The throttle lets far more through than any budget: the budgets bind.
    expect(throttle * (ADDRESS_ALL_GUESSES.windowMs / 1000)).toBeGreaterThan(ADDRESS_ALL_GUESSES.limit);
    const rows = [
      row(
        `one client address, the public check, at the route's throttle (${throttle} requests/s)`,
        'a printed card never used',
        '0 (never confirmed)',
        () => 0,
      ),
      row(
        'one client address, the public check',
        `a card in use (31^${MIN_RANDOM} at least)`,
        `${count(answersAYear(ADDRESS_ALL_GUESSES))} (${ADDRESS_ALL_GUESSES.limit} per 10 min)`,
        (n) => (answersAYear(ADDRESS_ALL_GUESSES) * n) / card,
      ),
      row(
        'one account (a verified number), redeeming, naming a code to top up or asking a login pass',
        'a printed card',
        `${count(answersAYear(ACCOUNT_GUESSES))} (${ACCOUNT_GUESSES.limit} an hour)`,
        (n) => (answersAYear(ACCOUNT_GUESSES) * n) / card,
      ),
      row(
        'one device changing MAC at every try, at one hotspot (RADIUS)',
        'a printed card, never used or on a new device',
        `${count(answersAYear(NAS_GUESSES))} (${NAS_GUESSES.limit} per 10 min)`,
        (n) => (answersAYear(NAS_GUESSES) * n) / card,
      ),
      row(
        'one device keeping its MAC, at one hotspot',
        'any code',
        `${count(answersAYear(DEVICE_GUESSES))} (${DEVICE_GUESSES.limit} per 10 min)`,
        (n) => (answersAYear(DEVICE_GUESSES) * n) / card,
      ),
      row(
        `one device changing MAC, at one hotspot, at ${throttle} logins/s`,
        `a paid code (31^${VOUCHER_LENGTH}), answered past the count`,
        count(atThrottle),
        (n) => (atThrottle * n) / space(VOUCHER_LENGTH),
      ),
      row(
        `before: one client address, the public check, at ${throttle} requests/s, cards of 6 random characters`,
        'a printed card never used',
        count(atThrottle),
        (n) => (atThrottle * n) / space(6),
      ),
    ];
    const missing = rows.filter((r) => !doc.includes(r));
    expect(missing).toEqual([]);
  });
});
