// The named attributes a record holds, as an answer's view of it.

/**
 * The named attributes of a record, those it holds (an absent or `undefined` one is left out,
 * not written as `undefined`): how a stored record becomes the view an answer shows, field by
 * field, without restating each one.
 */
export function pick<T extends object, K extends keyof T>(record: T, ...keys: K[]): Pick<T, K> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (record[key] !== undefined) out[key] = record[key];
  return out as Pick<T, K>;
}
