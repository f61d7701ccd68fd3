import { describe, expect, it } from 'vitest';
import { pick } from '../../functions/core/pick.js';

describe('pick: a view of a record, field by field', () => {
  it('copies the named attributes and leaves out an absent one (never `undefined` in an answer)', () => {
    const sale: { code: string; price: number; nas_id?: string; secret: string } = {
      code: 'A1',
      price: 100,
      secret: 'x',
    };
    const view = pick(sale, 'code', 'price', 'nas_id');
    expect(view).toEqual({ code: 'A1', price: 100 });
    expect(Object.hasOwn(view, 'nas_id')).toBe(false);
    expect(JSON.stringify(view)).not.toContain('secret');
    expect(pick({ ...sale, nas_id: 'hs-1' }, 'nas_id')).toEqual({ nas_id: 'hs-1' });
  });
});
