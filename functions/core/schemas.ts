// The shared schema pieces (ids, pages, cursors, days, settings) and `schema()`, which leaves unused schemas out of a bundle.

import * as z from 'zod/mini';

/**
 * Builds a module-level schema, the call marked free of side effects (the `@__PURE__`
 * annotation before `schema(...)`), so that a function's bundle drops every schema the function
 * does not use. esbuild keeps an unused declaration whose initializer it cannot prove pure, and a
 * zod `.check(...)` or one of the helpers below is such a call: without the mark every function
 * built, at start, every schema of each schemas module it imports (the payment status: 2,130
 * zod constructions, 1,538 of them for the billing schemas it does not use; its import took
 * about 2.5 % longer). Write `export const X = <@__PURE__ comment> schema(() => z.object(...))`;
 * test/unit/pure-schemas.test.ts checks every schemas module is written so, and that a bundle
 * leaves out what it does not use.
 */
export const schema = <T>(build: () => T): T => build();

/**
 * What the OpenAPI document shows for a schema whose wire form says less than the server checks:
 * an integer carried as text in a query string or a path is documented as the integer it must be
 * (`page_size`: integer 1..100), not as any digits. bin/local/openapi.ts reads this map.
 */
export const documentedAs = new WeakMap<object, Record<string, unknown>>();

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

/**
 * A UUID in any case, answered in lower case: every id the service makes is lower case, so an
 * upper-case spelling of one's own id compares equal once parsed (no 403 on one's own id).
 */
export const uuid = () =>
  z.pipe(
    z.string().check(z.regex(UUID, 'must be a UUID'), z.meta({ format: 'uuid' })),
    z.transform((v: string) => v.toLowerCase()),
  );

/** An integer carried in a query string or a path, within bounds. */
export const intParam = (min: number, max: number) => {
  const schema = z.pipe(
    z.string().check(z.regex(/^-?\d{1,9}$/, 'must be an integer')),
    z.pipe(
      z.transform((v: string) => Number.parseInt(v, 10)),
      z.number().check(z.gte(min, `must be at least ${min}`), z.lte(max, `must be at most ${max}`)),
    ),
  );
  documentedAs.set(schema, { type: 'integer', minimum: min, maximum: max });
  return schema;
};

/** A whole number setting read from the environment (the one integer parser of the project). */
export const intSetting = /* @__PURE__ */ schema(() => intParam(0, 999_999_999));

/**
 * Characters no text the service stores and shows back may hold: C0/C1 controls, and the
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) that make
 * `ACCESS Abidjan\u202Egnp.exe` read backwards on a phone's list of networks.
 */
const NOT_PLAIN = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** The same rule as a JSON Schema pattern (ECMA-262 without flags: no \p classes). */
const PLAIN_PATTERN =
  '^[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';

/**
 * Free text shown to people (a city, a reseller name and the SSID made from it): trimmed, 1 to
 * `max` characters, no control or bidirectional control characters.
 */
export const plainText = (max: number) =>
  z.string().check(
    z.trim(),
    z.minLength(1, 'must not be empty'),
    z.maxLength(max),
    z.refine((v: string) => !NOT_PLAIN.test(v), {
      message: 'must not contain control or bidirectional control characters',
    }),
    z.meta({ pattern: PLAIN_PATTERN }),
  );

/** A UTC day, YYYY-MM-DD. */
export const day = () =>
  z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be YYYY-MM-DD'));

/**
 * A CSV's language (`fr` by default): French headers and words, `;` between fields and dates
 * day first, as a French spreadsheet opens them; `en` as an English one does.
 */
export const csvLang = () => z._default(z.enum(['fr', 'en']), 'fr');

/** A query's `from`..`to` days: in order, and at most 93 days (a quarter) apart. */
export const withinAQuarter = /* @__PURE__ */ schema(() =>
  z.refine<{ from: string; to: string }>(
    (q) => q.from <= q.to && Date.parse(q.to) - Date.parse(q.from) <= 92 * 86_400_000,
    'from must not be after to, and the span is at most 93 days',
  ),
);

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** `page` (from 1) and `page_size` (1..100, default 20). */
export const pageQuery = /* @__PURE__ */ schema(() => ({
  page: z._default(intParam(1, 1_000_000), 1),
  page_size: z._default(intParam(1, MAX_PAGE_SIZE), DEFAULT_PAGE_SIZE),
}));

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pages: number;
}

/** The envelope of a page cut from a list already in memory. */
export function pageOf<T>(all: readonly T[], page: number, pageSize: number): Page<T> {
  const start = (page - 1) * pageSize;
  return {
    items: all.slice(start, start + pageSize),
    total: all.length,
    page,
    pages: Math.ceil(all.length / pageSize),
  };
}

/** Envelope schema, for the OpenAPI document. */
export const pageSchema = <T extends z.ZodMiniType>(item: T) =>
  z.object({ items: z.array(item), total: z.int(), page: z.int(), pages: z.int() });

/**
 * The query string of a route that passes an open set of parameters on (the captive portal: the
 * router's own `mac`, `ip`, `link-login`...): any name, any value. Every other route lists its
 * parameters, and any other is a 400.
 */
export const OpenQuery = /* @__PURE__ */ schema(() => z.record(z.string(), z.string()));

/** The shape of a page cursor (functions/core/cursor.ts checks its signature). */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,2048}\.[A-Za-z0-9_-]{43}$/;

/** A page cursor the server made (its signature is checked by functions/core/cursor.ts). */
export const cursorParam = () => z.string().check(z.regex(CURSOR_PATTERN, 'must be a cursor this list gave'));

/** `limit` (1..100, default 50) and `cursor` (the previous page's `next_cursor`) of a list read by cursor. */
export const cursorQuery = () => ({
  limit: z._default(intParam(1, 100), 50),
  cursor: z.optional(cursorParam()),
});

/** A page of a list read by cursor: its items, and `next_cursor`, absent on the last page. */
export const cursorPage = <T extends z.ZodMiniType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.optional(z.string()) });
