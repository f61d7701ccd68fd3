import { describe, expect, it } from 'vitest';
import { allOf, anyOf, entity } from '../../functions/store/entity.js';

// What the store helper says for a module (functions/store/expressions.ts, update-expression.ts):
// updates and conditions written from the entity's attributes, the TTL declared once.

interface Box {
  id: string;
  owner: string;
  status: 'open' | 'shut';
  total?: number;
  base?: number;
  tags?: string[];
  seen?: Set<number>;
  slots?: Record<string, number>;
  shut_at?: string;
  first_at?: string;
}

const Box = entity<Box>('box')({
  key: (b: Pick<Box, 'id'>) => ({ pk: `BOX#${b.id}`, sk: 'BOX' }),
  indexes: { byOwner: { gsi: 'gsi1', pk: 'OWNER#{owner}', sk: '{id}' } },
  // Kept a day after it shut; an open box stays.
  ttl: (b) => (b.shut_at ? Date.parse(b.shut_at) / 1000 + 86_400 : undefined),
  ttlFrom: ['shut_at'],
});

type Sent = {
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** An update or condition with its placeholders replaced by names and values. */
function said(u: Sent, which: 'UpdateExpression' | 'ConditionExpression' = 'UpdateExpression'): string {
  let text = u[which] ?? '';
  for (const [k, v] of Object.entries(u.ExpressionAttributeNames ?? {})) text = text.replaceAll(k, v);
  for (const [k, v] of Object.entries(u.ExpressionAttributeValues ?? {}))
    text = text.replaceAll(new RegExp(`${k}(?!\\w)`, 'g'), JSON.stringify(v instanceof Set ? [...v] : v));
  return text;
}

const update = (...args: Parameters<typeof Box.tx.update>) => Box.tx.update(...args).Update as Sent;

describe('the store helper says an update', () => {
  it('sets only where absent, appends to a list, adds to and deletes from a set, sums two attributes', () => {
    expect(
      said(
        update(
          { id: 'b1' },
          {
            ifAbsent: { first_at: '2026-01-01' },
            append: { tags: ['x'] },
            add: { seen: new Set([7]) },
            drop: { seen: new Set([3]) },
            sum: { total: ['base', 5] },
          },
        ),
      ),
    ).toBe(
      'SET first_at = if_not_exists(first_at, "2026-01-01"), tags = list_append(if_not_exists(tags, []), ["x"]), ' +
        'total = if_not_exists(base, 0) + 5 ADD seen [7] DELETE seen [3]',
    );
  });

  it('sets, removes and adds to entries of a map without writing the rest of it', () => {
    expect(said(update({ id: 'b1' }, { entries: { slots: { a: 1, b: undefined, c: { add: -2 } } } }))).toBe(
      'SET slots.a = 1, slots.c = if_not_exists(slots.c, 0) + -2 REMOVE slots.b',
    );
  });

  it('refuses what would move an index without its keys following (an ADD, an entry, a sum into its attribute)', () => {
    expect(() => update({ id: 'b1' }, { append: { owner: 'x' } as never })).toThrow(/index's attribute/);
    expect(() => update({ id: 'b1' }, { sum: { owner: ['base', 1] } as never })).toThrow(/index's attribute/);
  });

  it('writes the TTL again when an attribute it is computed from changes, and removes it when it no longer applies', () => {
    expect(said(update({ id: 'b1' }, { set: { shut_at: '2026-01-01T00:00:00Z' } }))).toBe(
      `SET shut_at = "2026-01-01T00:00:00Z", ttl = ${Date.parse('2026-01-02T00:00:00Z') / 1000}`,
    );
    expect(said(update({ id: 'b1' }, { set: { shut_at: undefined } }))).toBe('REMOVE shut_at, ttl');
    expect(said(update({ id: 'b1' }, { set: { status: 'open' } }))).toBe('SET status = "open"');
  });
});

describe('the store helper says a condition', () => {
  const w = Box.where;

  it("names each attribute and comparison's placeholder after them, map entries and flat names included", () => {
    const c = allOf(
      w.is('status', 'open'),
      w.compare('total', '<', 10),
      w.has(['slots', 'nas/AA:BB']),
      w.lacksOr('first_at', w.compare('first_at', '<=', '2026-01-01')),
      w.oneOf('owner', ['ana', 'ben']),
      w.lacksValue('seen', 3),
    );
    expect(
      said(
        {
          ConditionExpression: c.expression,
          ExpressionAttributeNames: c.names,
          ExpressionAttributeValues: c.values,
        },
        'ConditionExpression',
      ),
    ).toBe(
      '(status = "open") AND (total < 10) AND (attribute_exists(slots.nas/AA:BB)) AND ' +
        '((attribute_not_exists(first_at)) OR (first_at <= "2026-01-01")) AND (owner IN ("ana", "ben")) AND (NOT contains(seen, 3))',
    );
  });

  it('refuses two conditions whose one placeholder would stand for two values', () => {
    expect(() => allOf(w.is('status', 'open'), w.is('status', 'shut'))).toThrow(/two values/);
    expect(() => anyOf(w.is('status', 'open'), w.is('status', 'shut'))).toThrow(/two values/);
    expect(allOf(w.is('status', 'open'), w.is('status', 'open')).expression).toBe(
      '(#w_status = :w_status_eq) AND (#w_status = :w_status_eq)',
    );
  });
});
