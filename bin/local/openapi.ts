import * as z from 'zod/mini';
import { ERROR_STATUS } from '../../functions/core/errors.js';
import type { Contract } from '../../functions/core/http.js';
import { type Route, routes } from '../../functions/routes.js';

type Json = Record<string, unknown>;

const toSchema = (schema: unknown, io: 'input' | 'output'): Json => {
  const out = z.toJSONSchema(schema as z.ZodMiniType, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  delete out.$schema;
  return out;
};

const errorStatuses = (route: Route, contract: Contract): number[] => {
  const s = new Set<number>([500]);
  if (contract.body || contract.query || contract.params) s.add(400);
  if (contract.body) {
    s.add(413);
    s.add(415);
  }
  // A RADIUS server's wrong bearer is a 5xx (FreeRADIUS reads 401 as "reject this user").
  if (route.auth === 'radius') s.add(502);
  else if (route.auth !== 'none') s.add(401);
  if (route.auth === 'admin' || route.auth === 'reseller') s.add(403);
  if (route.path.includes('{')) s.add(404);
  if (route.method !== 'GET' && !route.path.startsWith('/api/v1/auth/')) s.add(409);
  if (route.path.endsWith('/otp/request')) s.add(429);
  if (route.access.table !== 'none') s.add(503);
  return [...s].sort();
};

async function loadContract(route: Route): Promise<Contract> {
  const mod = (await import(new URL(`../../functions/${route.handler}.ts`, import.meta.url).href)) as {
    handler: { contract?: Contract };
  };
  if (!mod.handler.contract) throw new Error(`${route.handler}: handler was not built with endpoint()`);
  return mod.handler.contract;
}

function parameters(contract: Contract): Json[] {
  const out: Json[] = [];
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
  for (const route of routes) {
    const contract = await loadContract(route);
    const success = contract.response ?? { status: 200 };
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
        route.auth === 'none'
          ? []
          : route.auth === 'webhook'
            ? [{ providerSecret: [] }]
            : route.auth === 'radius'
              ? [{ radiusBearer: [] }]
              : [{ bearer: [] }],
      parameters: parameters(contract),
      responses: {
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
        ...Object.fromEntries(
          (contract.also ?? []).map((a) => [
            String(a.status),
            {
              description: a.description,
              content: { 'application/json': { schema: toSchema(a.schema, 'output') } },
            },
          ]),
        ),
        ...Object.fromEntries(
          errorStatuses(route, contract)
            .filter((status) => !contract.also?.some((a) => a.status === status))
            .map((status) => [
              String(status),
              {
                description: Object.entries(ERROR_STATUS)
                  .filter(([, s]) => s === status)
                  .map(([code]) => code)
                  .join(', '),
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
              },
            ]),
        ),
      },
    };
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
      description: "Generated from functions/routes.ts and the handlers' zod schemas. Amounts in FCFA.",
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
