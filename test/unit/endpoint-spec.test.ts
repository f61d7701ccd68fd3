import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { successOf } from '../../functions/core/endpoint-spec.js';

describe('a handler spec names its success answer once', () => {
  const Body = z.object({ id: z.string() });

  it('reads `ok` as a 200 and `created` as a 201 with that schema', () => {
    expect(successOf({ ok: Body })).toEqual({ status: 200, schema: Body });
    expect(successOf({ created: Body })).toEqual({ status: 201, schema: Body });
  });

  it('keeps the long form for answers without JSON, and a bodiless 200 without any', () => {
    expect(successOf({ response: { status: 204 } })).toEqual({ status: 204 });
    expect(successOf({ response: { status: 200, contentType: 'text/csv' } })).toEqual({
      status: 200,
      contentType: 'text/csv',
    });
    expect(successOf({})).toEqual({ status: 200 });
  });

  it('refuses a spec that gives two forms, which would leave the contract ambiguous', () => {
    expect(() => successOf({ ok: Body, created: Body })).toThrow(/once/);
    expect(() => successOf({ ok: Body, response: { status: 204 } })).toThrow(/once/);
  });
});
