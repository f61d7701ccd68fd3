import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../bin/local/openapi.js';

type Json = Record<string, unknown>;
interface Operation {
  pattern: RegExp;
  method: string;
  /** Every documented status; those with a JSON body have a validator. */
  statuses: Set<string>;
  validators: Map<string, ValidateFunction>;
}

let operations: Promise<Operation[]> | undefined;

async function compile(): Promise<Operation[]> {
  const doc = await buildOpenApi();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema((doc.components as Json).schemas as Json, 'components');
  const errorSchema = { $ref: 'components#/Error' };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item)) {
      const validators = new Map<string, ValidateFunction>();
      const statuses = new Set(Object.keys(op.responses as Record<string, Json>));
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const content = response.content as Record<string, { schema: Json }> | undefined;
        const schema = content?.['application/json']?.schema;
        if (!schema) continue;
        validators.set(status, ajv.compile(schema.$ref ? errorSchema : schema));
      }
      out.push({ pattern, method: method.toUpperCase(), statuses, validators });
    }
  }
  return out;
}

/**
 * Checks one recorded response against the OpenAPI document: a documented status must match
 * its schema; an undocumented success is itself a contract breach. Throws on a mismatch.
 */
export async function checkAgainstContract(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): Promise<void> {
  operations ??= compile();
  const pathname = path.split('?')[0] ?? path;
  const op = (await operations).find((o) => o.method === method && o.pattern.test(pathname));
  if (!op || !contentType?.includes('application/json')) return;
  const validate = op.validators.get(String(status));
  if (!validate) {
    if (status < 300 && !op.statuses.has(String(status)))
      throw new Error(`contract: ${method} ${pathname} answered ${status}, which is not documented`);
    return;
  }
  if (!validate(body)) {
    throw new Error(
      `contract: ${method} ${pathname} ${status} does not match the OpenAPI document: ${JSON.stringify(validate.errors)}`,
    );
  }
}
