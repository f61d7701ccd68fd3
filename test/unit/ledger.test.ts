import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bookings } from '../../functions/billing/ledger.js';

/** A sale, as the ledger books it. */
type Sale = Parameters<typeof bookings>[0];

/**
 * One ledger: the month's books (REVENUE#) and the day's (SALES#) are written by the entries of
 * functions/billing/ledger.ts and by nothing else. The store modules that declare those items
 * build the entries; the ledger is the only module that imports the builders.
 */
const LEDGER = 'functions/billing/ledger.ts';
const DECLARING = ['functions/store/revenue.ts', 'functions/store/sales.ts', 'functions/store/books.ts'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.m?tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The code without its comments (an Access comment names the items a transaction writes). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

/** What in a module would write a revenue or daily-sales item, if anything. */
function writesBooks(text: string): string[] {
  const c = code(text);
  return [
    ...[...c.matchAll(/\b(monthEntry|dayEntry|entryAdds)\b/g)].map((m) => m[1] as string),
    ...[...c.matchAll(/(REVENUE#|SALES#|'revenue'|'daily_sales'|"revenue"|"daily_sales")/g)].map(
      (m) => m[1] as string,
    ),
  ];
}

describe('the one ledger', () => {
  it('is the only module that writes a revenue or daily-sales item', () => {
    const offenders = Object.fromEntries(
      sources('functions')
        .filter((f) => f !== LEDGER && !DECLARING.includes(f))
        .map((f) => [f, writesBooks(readFileSync(f, 'utf8'))] as const)
        .filter(([, found]) => found.length > 0),
    );
    expect(offenders).toEqual({});
    // The scan does see a writer: the ledger itself, and a module that would build an entry.
    expect(writesBooks(readFileSync(LEDGER, 'utf8'))).toEqual([
      'monthEntry',
      'dayEntry',
      'monthEntry',
      'dayEntry',
    ]);
    expect(writesBooks("import { dayEntry } from '../store/sales.js';\n// SALES# in a comment")).toEqual([
      'dayEntry',
    ]);
    // The declaring modules keep their entities to themselves.
    for (const f of DECLARING) expect(readFileSync(f, 'utf8')).not.toMatch(/export const (Revenue|Sales)\b/);
  });

  const sale = (s: Partial<Sale>): Sale => ({
    resellerId: 'r-1',
    forfaitId: 'f-1',
    channel: 'mobile_money',
    amountFcfa: 500,
    ...s,
  });
  const adds = (item: ReturnType<typeof bookings>['monthBooks']) => {
    const u = item.Update as {
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
      UpdateExpression: string;
    };
    const add = /ADD (.*?)(?: SET|$)/.exec(u.UpdateExpression)?.[1] ?? '';
    return Object.fromEntries(
      add.split(', ').map((clause) => {
        const [name, value] = clause.split(' ') as [string, string];
        return [u.ExpressionAttributeNames[name], u.ExpressionAttributeValues[value]];
      }),
    );
  };

  it('books a mobile-money sale with the provider fee, a voucher or a cash sale without', () => {
    expect(adds(bookings(sale({ nasId: 'nas-1' }), '2026-11-23T10:00:00.000Z').monthBooks)).toEqual({
      total_fcfa: 500,
      sales_count: 1,
      provider_fee_fcfa: 10,
      commission_fcfa: 0,
      'h:nas-1': 500,
      'f:f-1': 500,
      'c:mobile_money': 500,
    });
    expect(adds(bookings(sale({ channel: 'voucher' }), '2026-11-23T10:00:00.000Z').dayBooks)).toMatchObject({
      provider_fee_fcfa: 0,
      'h:-': 500,
      'c:voucher': 500,
    });
    const cash = sale({ channel: 'cash', agent: { id: 'a-1', commissionFcfa: 50 } });
    expect(adds(bookings(cash, '2026-11-23T10:00:00.000Z').monthBooks)).toMatchObject({
      provider_fee_fcfa: 0,
      commission_fcfa: 50,
      'c:cash': 500,
      'a:a-1': 500,
    });
  });

  it('books a refund as the opposite of its sale, in the month and the day of the refund', () => {
    const refund = bookings(sale({ nasId: 'nas-1' }), '2026-12-01T00:30:00.000Z', -1);
    for (const item of [refund.monthBooks, refund.dayBooks]) {
      expect(adds(item)).toEqual({
        total_fcfa: -500,
        sales_count: -1,
        provider_fee_fcfa: -10,
        commission_fcfa: 0,
        'h:nas-1': -500,
        'f:f-1': -500,
        'c:mobile_money': -500,
      });
    }
    expect((refund.monthBooks.Update as { Key: unknown }).Key).toEqual({
      pk: 'REVENUE#r-1',
      sk: 'MONTH#2026-12',
    });
    expect((refund.dayBooks.Update as { Key: unknown }).Key).toEqual({
      pk: 'SALES#r-1',
      sk: 'DAY#2026-12-01',
    });
  });
});
