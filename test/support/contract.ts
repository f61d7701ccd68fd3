import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../bin/local/openapi.js';

type Json = Record<string, unknown>;
interface Answer {
  /** Media types the document gives this status (none: an empty body). */
  types: string[];
  /** The JSON body's validator, when the status has one. */
  validate?: ValidateFunction;
  /** The error codes of an error status. */
  codes?: string[];
}
interface Operation {
  pattern: RegExp;
  method: string;
  /** Every documented status. */
  answers: Map<string, Answer>;
}
interface Compiled {
  operations: Operation[];
  /** Every path of the document, for the unrouted answers (404 and 405). */
  paths: RegExp[];
}

let compiled: Promise<Compiled> | undefined;

/** `#/components/...` as a reference into the document added to ajv under `openapi.json`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Json).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi.json${v}` : rebase(v),
    ]),
  );
}

async function compile(): Promise<Compiled> {
  const doc = await buildOpenApi();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
  const operations: Operation[] = [];
  const paths: RegExp[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
    paths.push(pattern);
    for (const [method, op] of Object.entries(item)) {
      const answers = new Map<string, Answer>();
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const content = (response.content ?? {}) as Record<string, { schema: Json }>;
        const schema = content['application/json']?.schema;
        answers.set(status, {
          types: Object.keys(content),
          ...(schema ? { validate: ajv.compile(rebase(schema) as Json) } : {}),
          ...(response['x-error-codes'] ? { codes: response['x-error-codes'] as string[] } : {}),
        });
      }
      operations.push({ pattern, method: method.toUpperCase(), answers });
    }
  }
  return { operations, paths };
}

const fail = (message: string): never => {
  throw new Error(`contract: ${message}`);
};

/**
 * Checks one recorded response against the OpenAPI document. Every status must be documented
 * for its operation (any status, errors included), an error's code must be one the document
 * lists for that status, and a JSON body must match its schema. A path the document does not
 * have may only answer 404 ERR_NOT_FOUND (or be a page of the local host outside the API: the
 * docs, the sandbox); a documented path with an undocumented method only 405
 * ERR_METHOD_NOT_ALLOWED. Throws on a mismatch.
 */
export async function checkAgainstContract(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): Promise<void> {
  compiled ??= compile();
  const { operations, paths } = await compiled;
  const pathname = path.split('?')[0] ?? path;
  const where = `${method} ${pathname}`;
  const json = contentType?.includes('application/json') ?? false;
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  const op = operations.find((o) => o.method === method && o.pattern.test(pathname));
  if (!op) {
    if (paths.some((p) => p.test(pathname))) {
      // HEAD's answer has no body to carry the code.
      if (status !== 405 || (code !== 'ERR_METHOD_NOT_ALLOWED' && !(method === 'HEAD' && code === undefined)))
        fail(`${where} has no operation: expected 405 ERR_METHOD_NOT_ALLOWED, got ${status} ${String(code)}`);
      return;
    }
    // Not the API's: a 404 must be the API's own; anything else is a page of the local host.
    if (status === 404 && json && code !== 'ERR_NOT_FOUND')
      fail(`${where} answered 404 with ${String(code)} instead of ERR_NOT_FOUND`);
    return;
  }
  const answer = op.answers.get(String(status));
  if (!answer) {
    fail(
      `${where} answered ${status}${code ? ` ${String(code)}` : ''}, which is not documented (documented: ${[...op.answers.keys()].join(', ')})`,
    );
    return;
  }
  if (answer.codes && typeof code === 'string' && !answer.codes.includes(code))
    fail(`${where} answered ${status} ${code}, not one of the codes documented: ${answer.codes.join(', ')}`);
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const empty = body === undefined || body === '';
  if (answer.types.length === 0) {
    if (!empty) fail(`${where} ${status} is documented without a body, and answered one (${type})`);
    return;
  }
  // A body's media type must be one the status documents (of the same family: the portal's
  // script and stylesheet share one operation, documented as text).
  const family = (t: string) => t.split('/')[0];
  if (!empty && !answer.types.some((t) => t === type || (!json && family(t) === family(type))))
    fail(`${where} answered ${status} as ${type}, documented as ${answer.types.join(', ')}`);
  if (json && answer.validate && !answer.validate(body)) {
    fail(`${where} ${status} does not match the OpenAPI document: ${JSON.stringify(answer.validate.errors)}`);
  }
}
