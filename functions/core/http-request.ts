// A request as the endpoints read it: headers normalised, a JSON body bounded and parsed, input validated.

import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod/mini';
import { AppError, type ErrorDetail } from './errors.js';

/**
 * A request as the endpoints' middlewares read it: headers lower-cased, the JSON body within
 * its size, each part parsed by its schema into a 400 that names the fields.
 */

/** Largest request body accepted, in bytes (the local server enforces the same before parsing). */
export const MAX_BODY_BYTES = 64 * 1024;

export type Schema<T> = z.ZodMiniType<T>;

/**
 * DynamoDB's refusal of a number it cannot store (magnitude under 1e-130 or over 1e126, more
 * than 38 significant digits): only a number the request carried can be one, so a 400, never a
 * 500. The schemas bound numbers first (coordinates are rounded); this is the backstop.
 */
export function unstorableNumber(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'ValidationException' &&
    /number (underflow|overflow)|significant digits/i.test(e.message ?? '')
  );
}

function issues(error: z.core.$ZodError, prefix: string): ErrorDetail[] {
  const at = (path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.');
  return error.issues.flatMap((i) =>
    // A strict schema's refusal names each unknown field (zod/mini's message says only "Invalid input").
    i.code === 'unrecognized_keys'
      ? i.keys.map((key) => ({ path: at([...i.path, key]), message: 'is not a known field' }))
      : [{ path: at(i.path), message: i.message }],
  );
}

export function parse<T>(schema: Schema<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('ERR_VALIDATION', `Invalid ${where}`, { details: issues(result.error, where) });
  }
  return result.data;
}

export function normalizeHeaders(event: APIGatewayProxyEventV2): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  event.headers = out;
  return out;
}

export function readJsonBody(event: APIGatewayProxyEventV2, headers: Record<string, string>): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  const type = headers['content-type'] ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('ERR_VALIDATION', 'Request body is not valid JSON');
  }
}

/** 400 for a body sent to a route that takes none (empty, or `{}`, is no body). */
export function refuseBody(event: APIGatewayProxyEventV2): void {
  if (event.body === undefined || event.body === null) return;
  const text = (
    event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body
  ).trim();
  if (text === '' || /^\{\s*\}$/.test(text)) return;
  throw new AppError('ERR_VALIDATION', 'This route takes no request body', {
    details: [{ path: 'body', message: 'must be empty' }],
  });
}
