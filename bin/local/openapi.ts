// The OpenAPI document generated from the route table and each handler's declared contract.

import * as z from 'zod/mini';
import { type Contract, routeErrors, successOf } from '../../functions/core/endpoint-spec.js';
import { ERROR_STATUS } from '../../functions/core/errors.js';
import { documentedAs } from '../../functions/core/schemas.js';
import { type Route, routes } from '../../functions/routes.js';

type Json = Record<string, unknown>;

const toSchema = (schema: unknown, io: 'input' | 'output'): Json => {
  const out = z.toJSONSchema(schema as z.ZodMiniType, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      const js = jsonSchema as Json;
      // An integer carried as text is documented as the integer it must be, with its bounds.
      const as = documentedAs.get(zodSchema);
      if (as) {
        for (const k of Object.keys(js)) delete js[k];
        Object.assign(js, as);
      }
      // A default is what the server uses when the parameter is left out: show it on input too.
      const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
      if (def.type === 'default' && js.default === undefined) js.default = def.defaultValue;
    },
  }) as Json;
  delete out.$schema;
  return out;
};

/** Statuses of every route's error answers, each with the codes it may carry. */
function errorResponses(route: Route, contract: Contract): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [status, codes] of routeErrors(route, contract)) {
    out[String(status)] = {
      description: codes.join(', '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Error' },
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: codes } } } },
              },
            ],
          },
        },
      },
      'x-error-codes': codes,
    };
  }
  return out;
}

/** The `also` answers of a handler (a 304, a refusal with its own body, an HTML page). */
function otherResponses(contract: Contract): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const a of contract.also ?? []) {
    const content = a.schema
      ? { [a.contentType ?? 'application/json']: { schema: toSchema(a.schema, 'output') } }
      : a.contentType
        ? { [a.contentType]: { schema: { type: 'string' } } }
        : undefined;
    out[String(a.status)] = { description: a.description, ...(content ? { content } : {}) };
  }
  return out;
}

/** Merges two answers of one status: descriptions joined, JSON bodies either schema. */
function merge(a: Json | undefined, b: Json): Json {
  if (!a) return b;
  const ca = (a.content ?? {}) as Record<string, { schema: Json }>;
  const cb = (b.content ?? {}) as Record<string, { schema: Json }>;
  const content: Record<string, { schema: Json }> = { ...ca, ...cb };
  for (const type of Object.keys(ca)) {
    if (cb[type] && ca[type]) content[type] = { schema: { anyOf: [ca[type].schema, cb[type].schema] } };
  }
  return { ...a, ...b, description: `${a.description}; ${b.description}`, content };
}

async function loadContract(route: Route): Promise<Contract> {
  const mod = (await import(new URL(`../../functions/${route.handler}.ts`, import.meta.url).href)) as {
    handler: { contract?: Contract };
  };
  if (!mod.handler.contract) throw new Error(`${route.handler}: handler was not built with endpoint()`);
  return mod.handler.contract;
}

function parameters(route: Route, contract: Contract): Json[] {
  const out: Json[] = [];
  // A path parameter the handler reads without a schema (the portal's) is still a parameter.
  if (!contract.params) {
    for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
      out.push({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } });
    }
  }
  for (const [where, schema] of [
    ['path', contract.params],
    ['query', contract.query],
  ] as const) {
    if (!schema) continue;
    const js = toSchema(schema, 'input');
    const props = (js.properties ?? {}) as Record<string, Json>;
    const required = new Set((js.required as string[] | undefined) ?? []);
    for (const [name, p] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: p });
    }
  }
  return out;
}

/**
 * The OpenAPI 3.1 document of the route table, generated from the zod schemas the handlers
 * validate with: one source for validation and contract.
 */
export async function buildOpenApi(): Promise<Json> {
  const paths: Record<string, Record<string, Json>> = {};
  // The public API only: the RADIUS data plane's rows are the front's service's, on loopback.
  for (const route of routes) {
    if (route.plane === 'front') continue;
    const contract = await loadContract(route);
    const success = successOf(contract);
    const op: Json = {
      operationId: `${route.method.toLowerCase()}${route.path
        .replace(/^\/api\/v1/, '')
        .replace(/[{}]/g, '')
        .replace(/[/_-](\w)/g, (_m, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      // The area is the handler's folder (auth, billing, network, monitoring, ...): /docs groups by it.
      tags: [route.handler.split('/')[0]],
      'x-auth-level': route.auth,
      security:
        // A gateway's signature has no OpenAPI scheme: each gateway signs its own way (x-auth-level says it).
        route.auth === 'none' || route.auth === 'signature'
          ? []
          : route.auth === 'webhook'
            ? [{ providerSecret: [] }]
            : route.auth === 'radius'
              ? [{ radiusBearer: [] }]
              : [{ bearer: [] }],
      parameters: parameters(route, contract),
      responses: {} as Record<string, Json>,
    };
    const responses: Record<string, Json> = {
      [String(success.status)]: {
        description: 'Success',
        ...(success.schema || success.contentType
          ? {
              content: {
                [success.contentType ?? 'application/json']: {
                  schema: success.schema ? toSchema(success.schema, 'output') : { type: 'string' },
                },
              },
            }
          : {}),
      },
    };
    for (const [status, answer] of [
      ...Object.entries(otherResponses(contract)),
      ...Object.entries(errorResponses(route, contract)),
    ]) {
      responses[status] = merge(responses[status], answer);
    }
    op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
    if (contract.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: toSchema(contract.body, 'input') } },
      };
    }
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, Json>)[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hotspot reseller platform API',
      version: '1.0.0',
      description: [
        "Generated from functions/routes.ts and the handlers' zod schemas. Amounts in FCFA.",
        'Every status an operation can answer is listed with its error codes (`x-error-codes`); an error body is `{"error": {"code", "message", "details"?}}`.',
        'Any operation: a query parameter it does not list is a 400 ERR_VALIDATION. A path no operation has is a 404 ERR_NOT_FOUND; a known path with a method it has no operation for (HEAD and OPTIONS included) is a 405 ERR_METHOD_NOT_ALLOWED with an `Allow` header naming its methods. (In AWS, API Gateway answers a path or method that has no route itself, before any function runs: 404 `{"message":"Not Found"}`.)',
        'No CORS: the captive portal and the dashboards are served from the API origin, so no `Access-Control-*` header is sent and a cross-origin browser call is refused by the browser.',
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'auth', description: 'SMS one-time password login and session tokens' },
      { name: 'billing', description: 'Forfaits, mobile-money payments, vouchers, revenue' },
      { name: 'network', description: 'VLANs, sites, branding, DNS sinkhole, gateway rules' },
      { name: 'monitoring', description: 'Overview, public status, alerts, canary' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        providerSecret: { type: 'apiKey', in: 'header', name: 'x-provider-secret' },
        radiusBearer: { type: 'http', scheme: 'bearer', description: "A RADIUS server's own token" },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { path: { type: 'string' }, message: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
