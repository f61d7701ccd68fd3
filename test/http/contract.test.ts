import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../bin/local/openapi.js';
import { routes } from '../../functions/routes.js';
import { checkAgainstContract } from '../support/contract.js';
import { call, useLocalServer } from '../support/http.js';

const server = useLocalServer();

describe('the OpenAPI document', () => {
  it('has every public route-table row, with its auth level, and none of the RADIUS data plane', async () => {
    const doc = (await buildOpenApi()) as {
      paths: Record<string, Record<string, { 'x-auth-level': string }>>;
    };
    for (const r of routes) {
      expect(doc.paths[r.path]?.[r.method.toLowerCase()]?.['x-auth-level'], `${r.method} ${r.path}`).toBe(
        r.plane === 'front' ? undefined : r.auth,
      );
    }
    expect(routes.some((r) => r.plane === 'front')).toBe(true);
  });

  it('is committed as docs/openapi.json and current (run `npm run openapi` after changing a schema)', async () => {
    const committed = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(await buildOpenApi())));
  });

  it('is served by the local server, with a docs page', async () => {
    const doc = await call(server.url(), 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect((doc.body as { openapi: string }).openapi).toBe('3.1.0');
    const page = await fetch(`${server.url()}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('SwaggerUIBundle');
    expect((await fetch(`${server.url()}/docs/swagger-ui-bundle.js`)).status).toBe(200);
  });

  it('rejects unknown fields in every request body (strict schemas: no mass assignment)', async () => {
    const doc = (await buildOpenApi()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
      >;
    };
    type Schema = {
      type?: string;
      additionalProperties?: unknown;
      propertyNames?: unknown;
      anyOf?: Schema[];
      oneOf?: Schema[];
    };
    // A map by design (FreeRADIUS's attributes: named by pattern) is checked through its values.
    const objects = (sch: Schema): Schema[] => [
      ...(sch.type === 'object' && sch.propertyNames ? objects(sch.additionalProperties as Schema) : []),
      ...(sch.type === 'object' && !sch.propertyNames ? [sch] : []),
      ...(sch.anyOf ?? []).flatMap(objects),
      ...(sch.oneOf ?? []).flatMap(objects),
    ];
    let bodies = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const schema = op.requestBody?.content['application/json']?.schema;
        if (!schema) continue;
        bodies += 1;
        const found = objects(schema);
        expect(found.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const o of found) expect(o.additionalProperties, `${method} ${path}`).toBe(false);
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(5);
  });

  it('catches a response that breaks it', async () => {
    await expect(
      checkAgainstContract('GET', '/api/v1/forfaits', 200, 'application/json', { items: [{ id: 1 }] }),
    ).rejects.toThrow('does not match');
    await expect(
      checkAgainstContract('GET', '/api/v1/forfaits', 400, 'application/json', {
        error: { message: 'no code' },
      }),
    ).rejects.toThrow('does not match');
  });
});
