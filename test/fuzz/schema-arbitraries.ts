import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: the requests the fuzzer
 * sends are drawn from the contract itself. Values named like a fixture (`reseller_id`,
 * `nas_id`, ...) are drawn from the seeded data most of the time, so that requests reach past
 * validation into the handlers; and a share of every kind of value breaks the schema on purpose.
 */
export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
};

/** Known values by field or parameter name: the seeded fixtures. */
export type Known = Record<string, readonly unknown[]>;

/** Values of the wrong type, or at the edges no schema admits. */
const wrong = fc.constantFrom<unknown>(
  null,
  '',
  ' ',
  'x',
  -1,
  0,
  1.5,
  5e-324,
  1e-200,
  1e300,
  -1e300,
  Number.MAX_SAFE_INTEGER + 2,
  true,
  [],
  {},
  'A'.repeat(5000),
  '\u202Eevil',
  '%00',
  '<script>',
  '../../etc/passwd',
);

const ANY_TEXT = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

function stringOf(s: JsonSchema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 64, 256);
  if (s.format === 'uuid') return fc.uuid({ version: 4 });
  if (s.pattern) {
    const re = new RegExp(s.pattern);
    return fc
      .stringMatching(re, { size: 'small' })
      .filter((v) => v.length >= min && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY));
  }
  if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'ipv4') return fc.ipV4();
  if (s.format === 'uri') return fc.webUrl({ validSchemes: ['https'] });
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

/** A valid value of the schema (as far as a JSON Schema can say: business rules are the server's). */
export function valid(schema: JsonSchema, known: Known, name?: string): fc.Arbitrary<unknown> {
  const own = name !== undefined ? known[name] : undefined;
  const generated = validOf(schema, known);
  return own && own.length > 0
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: generated })
    : generated;
}

function validOf(s: JsonSchema, known: Known): fc.Arbitrary<unknown> {
  const union = s.anyOf ?? s.oneOf;
  if (union?.length) return fc.oneof(...union.map((u) => valid(u, known)));
  if (s.allOf?.length) return valid(s.allOf[0] as JsonSchema, known);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringOf(s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: s.minimum ?? -1e9,
        max: s.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(s.items ? valid(s.items, known) : fc.anything(), {
        maxLength: Math.min(s.maxItems ?? 4, 4),
      });
    case 'object':
      return objectOf(s, known);
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  }
}

function objectOf(s: JsonSchema, known: Known): fc.Arbitrary<Record<string, unknown>> {
  // A map by design (FreeRADIUS's attributes): names by pattern, the known ones first.
  if (s.propertyNames) {
    const names = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...((known['@attribute'] as string[] | undefined) ?? ['x'])) },
      { weight: 1, arbitrary: valid(s.propertyNames, known) as fc.Arbitrary<string> },
    );
    const generated =
      typeof s.additionalProperties === 'object' ? valid(s.additionalProperties, known) : fc.anything();
    // FreeRADIUS's shape `{type, value: [v]}`, with a value it could send for that name.
    const valueFor = (n: string): fc.Arbitrary<unknown> => {
      const values = known[`@${n}`];
      if (!values?.length) return generated;
      return fc.oneof(
        {
          weight: 5,
          arbitrary: fc
            .constantFrom(...values)
            .map((v) => ({ type: typeof v === 'number' ? 'integer' : 'string', value: [v] })),
        },
        { weight: 1, arbitrary: generated },
      );
    };
    return fc
      .uniqueArray(names, { maxLength: 8 })
      .chain((ns) => fc.tuple(...ns.map((n) => valueFor(n).map((v) => [n, v] as const))))
      .map((pairs) => Object.fromEntries(pairs));
  }
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const entries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(props)) entries[key] = valid(sub, known, key);
  const requiredKeys = Object.keys(props).filter((k) => required.has(k));
  return fc.record(entries, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value of the schema most of the time, else one that breaks it (wrong type, out of range). */
export function maybeValid(
  schema: JsonSchema,
  known: Known,
  name?: string,
  oneIn = 8,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: oneIn - 1, arbitrary: valid(schema, known, name) },
    { weight: 1, arbitrary: invalid(schema) },
  );
}

/** A value the schema refuses, or that sits just outside its bounds. */
export function invalid(s: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const edges: fc.Arbitrary<unknown>[] = [wrong, ANY_TEXT];
  if (type === 'integer' || type === 'number') {
    if (s.minimum !== undefined) edges.push(fc.constant(s.minimum - 1), fc.constant(s.minimum - 0.5));
    if (s.maximum !== undefined) edges.push(fc.constant(s.maximum + 1));
  }
  if (type === 'string' && s.maxLength !== undefined) edges.push(fc.constant('a'.repeat(s.maxLength + 1)));
  return fc.oneof(...edges);
}

/** A JSON body from the schema, sometimes broken: a required field dropped, one added, the type. */
export function body(schema: JsonSchema, known: Known): fc.Arbitrary<unknown> {
  const good = valid(schema, known);
  if (schema.type !== 'object' || !schema.properties) {
    return fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: wrong });
  }
  const loose: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(schema.properties)) loose[key] = maybeValid(sub, known, key);
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(schema.properties);
  return fc.oneof(
    { weight: 10, arbitrary: good },
    {
      weight: 3,
      arbitrary: fc.record(loose, { requiredKeys: keys.filter((k) => required.has(k)) }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(good, fc.constantFrom('role', 'amount_fcfa', '__proto__', 'admin', 'status'), fc.anything())
        .map(([b, k, v]) => ({ ...(b as object), [k]: v })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(good, fc.constantFrom(...(keys.length ? keys : ['x'])))
        .map(([b, k]) => Object.fromEntries(Object.entries(b as object).filter(([key]) => key !== k))),
    },
    { weight: 1, arbitrary: wrong },
  );
}
