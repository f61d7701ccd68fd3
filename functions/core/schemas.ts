import * as z from 'zod/mini';

/** Building blocks shared by the request schemas of every area. */
export const uuid = () =>
  z
    .string()
    .check(
      z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, 'must be a UUID'),
    );

/** An integer carried in a query string or a path, within bounds. */
export const intParam = (min: number, max: number) =>
  z.pipe(
    z.string().check(z.regex(/^-?\d{1,9}$/, 'must be an integer')),
    z.pipe(
      z.transform((v: string) => Number.parseInt(v, 10)),
      z.number().check(z.gte(min, `must be at least ${min}`), z.lte(max, `must be at most ${max}`)),
    ),
  );

/** A whole number setting read from the environment (the one integer parser of the project). */
export const intSetting = intParam(0, 999_999_999);

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** `page` (from 1) and `page_size` (1..100, default 20). */
export const pageQuery = {
  page: z._default(intParam(1, 1_000_000), 1),
  page_size: z._default(intParam(1, MAX_PAGE_SIZE), DEFAULT_PAGE_SIZE),
};

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
