// The SMS budgets of a reseller: per number it texts and for all its numbers, taken by conditional counters.

import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { intSetting as int } from '../core/schemas.js';
import { sendSms } from '../core/sms.js';
import {
  type BudgetWindow,
  budgetStep,
  RateBudget,
  releaseBudget,
  windowStartOf,
} from '../store/rate-limit.js';

/**
 * Every SMS a reseller can make the platform send (an agent's invitation, a sale's code texted by
 * its agent, a paid code texted again, a silent router's alert to its own phones) spends two
 * budgets of that reseller: one per number it texts, so that no reseller can text anyone again
 * and again, and one for all its numbers, so that none can spend the platform's SMS bill. Each is
 * a counter per clock window taken by a conditional ADD (exact under concurrency: parallel
 * requests never pass a limit), and given back when nothing was sent. Keyed by reseller: what
 * one reseller spends never refuses another's SMS.
 */
export const resellerSmsSettings = defineSettings(
  z.object({
    /**
     * SMS one reseller may cause to one number per clock day (UTC): an invitation sent again, a
     * buyer's few codes of the day. Past it an invitation or a resend is 429, a sale's code is
     * shown on screen only.
     */
    RESELLER_SMS_PER_NUMBER_PER_DAY: z._default(int, 5),
    /** SMS one reseller may cause per clock hour, all numbers together (its agents' sales' codes in a busy hour). */
    RESELLER_SMS_PER_HOUR: z._default(int, 200),
  }),
);

function budgetsOf(resellerId: string, to: string): { window: BudgetWindow; subject: string }[] {
  const s = resellerSmsSettings();
  return [
    {
      window: {
        scope: 'SMS_RESELLER_NUMBER',
        limit: s.RESELLER_SMS_PER_NUMBER_PER_DAY,
        windowMs: 86_400_000,
      },
      subject: `${resellerId}#${to}`,
    },
    {
      window: { scope: 'SMS_RESELLER', limit: s.RESELLER_SMS_PER_HOUR, windowMs: 3_600_000 },
      subject: resellerId,
    },
  ];
}

/** One SMS taken from a reseller's budgets: send it, or give it back. */
export interface SmsTicket {
  /** Sends the SMS; when SNS fails, the SMS is given back and the error thrown. */
  send(text: string): Promise<void>;
  giveBack(): Promise<void>;
}

/**
 * Takes one SMS to `to` from the budgets of `resellerId`, or throws 429 ERR_RATE_LIMITED with
 * Retry-After (the end of the window that is full) and takes nothing.
 */
// Access: UpdateItem BUDGET#SMS_RESELLER_NUMBER#<reseller>#<to> and BUDGET#SMS_RESELLER#<reseller> sk=WINDOW#<start> ADD n 1 (condition n < limit), in parallel; ADD n -1 (condition n > 0) to give back.
export async function takeResellerSms(resellerId: string, to: string, nowMs: number): Promise<SmsTicket> {
  const budgets = budgetsOf(resellerId, to).map((b) => ({ ...b, start: windowStartOf(b.window, nowMs) }));
  // A budget of 0 (no SMS at all) is full without a write: the ADD's condition lets a first one in.
  const taken = await Promise.all(
    budgets.map(
      async (b) =>
        b.window.limit > 0 &&
        (await RateBudget.upsertReturning(...budgetStep(b.window, b.subject, b.start))) !== undefined,
    ),
  );
  const giveBack = async (which: boolean[]) => {
    await Promise.all(
      budgets.map((b, i) => (which[i] ? releaseBudget(b.window, b.subject, b.start) : undefined)),
    );
  };
  const full = budgets.find((_, i) => !taken[i]);
  if (full) {
    await giveBack(taken);
    const retryAfter = Math.max(1, Math.ceil((full.start + full.window.windowMs - nowMs) / 1000));
    throw new AppError(
      'ERR_RATE_LIMITED',
      full.window.scope === 'SMS_RESELLER'
        ? 'This reseller has sent all the SMS it may send this hour'
        : 'This number was sent all the SMS this reseller may send it today',
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }
  let kept = true;
  const ticket: SmsTicket = {
    // Once: a second call would give back another SMS's place.
    giveBack: async () => {
      if (kept) await giveBack(taken);
      kept = false;
    },
    send: async (text) => {
      try {
        await sendSms(to, text);
      } catch (error) {
        await ticket.giveBack();
        throw error;
      }
    },
  };
  return ticket;
}
