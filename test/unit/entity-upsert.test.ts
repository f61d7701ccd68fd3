import { describe, expect, it } from 'vitest';
import { entity } from '../../functions/store/entity.js';

/** A counter of the helper's own, with a TTL from its day and an index on its owner. */
interface Tally {
  owner: string;
  day: string;
  n?: number;
  first_at?: string;
}

const Tally = entity<Tally>('tally')({
  key: (t: Pick<Tally, 'owner' | 'day'>) => ({ pk: `TALLY#${t.owner}`, sk: t.day }),
  indexes: { byDay: { gsi: 'gsi1', pk: 'DAY#{day}', sk: '{owner}' } },
  ttl: (t) => Math.floor(Date.parse(`${t.day}T00:00:00Z`) / 1000) + 86_400,
});

type UpdateInput = {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
};
/** The expression with its names and values put back in: what DynamoDB reads. */
function said(item: { Update?: unknown }): string {
  const u = item.Update as UpdateInput;
  return u.UpdateExpression.replace(/#\w+/g, (n) => u.ExpressionAttributeNames[n] ?? n).replace(
    /(?<![\w-]):\w+/g,
    (v) => JSON.stringify(u.ExpressionAttributeValues[v] ?? v),
  );
}

describe("the store helper's upsert", () => {
  it('writes the entity, the TTL and the index keys with the counters, so a first ADD makes a whole item', () => {
    const k = { owner: 'ana', day: '2026-11-23' };
    expect(
      said(
        Tally.tx.upsert(k, {
          set: k,
          add: { n: 2, 'h:nas-1': 5 },
          ifAbsent: { first_at: '2026-11-23T10:00Z' },
        }),
      ),
    ).toBe(
      'SET entity = "tally", first_at = if_not_exists(first_at, "2026-11-23T10:00Z"), owner = "ana", ' +
        `day = "2026-11-23", ttl = ${Date.parse('2026-11-24T00:00:00Z') / 1000}, gsi1pk = "DAY#2026-11-23", gsi1sk = "ana" ADD n 2, h:nas-1 5`,
    );
  });

  it('is the only writer of `entity`: an expression that sets it by hand is refused', () => {
    expect(() =>
      Tally.tx.update(
        { owner: 'ana', day: '2026-11-23' },
        { expression: 'SET entity = :e', values: { ':e': 'x' } },
      ),
    ).toThrow(/entity is written by the helper/);
    // A plain update of an existing item writes no entity.
    expect(said(Tally.tx.update({ owner: 'ana', day: '2026-11-23' }, { add: { n: 1 } }))).toBe('ADD n 1');
  });

  it('refuses an ADD to an attribute an index is built from', () => {
    expect(() => Tally.tx.upsert({ owner: 'ana', day: '2026-11-23' }, { add: { owner: 1 } })).toThrow(
      /index/,
    );
  });
});
