import { describe, expect, it } from 'vitest';
import { type AuthLevel, routeKey, routes } from '../../functions/routes.js';
import { call, useLocalServer } from '../support/http.js';
import { cases, expectedOf } from './matrix/cases.js';
import { type Cast, makeCast, PRINCIPALS } from './matrix/principals.js';

// The RADIUS data plane's rows (plane 'front') on the front's service, the others on the API.
const server = useLocalServer({ front: true });
const LEVELS: AuthLevel[] = [
  'none',
  'jwt',
  'reseller',
  'admin',
  'agent',
  'webhook',
  'radius',
  'edge',
  'signature',
];

describe('route inventory', () => {
  it('declares a known auth level on every route', () => {
    for (const r of routes) expect(LEVELS, routeKey(r)).toContain(r.auth);
  });

  it('has a security-matrix case for every route, and none for a route that is gone', () => {
    expect(Object.keys(cases).sort()).toEqual(routes.map(routeKey).sort());
  });

  it('expects what the declared level implies for anonymous and forged callers', () => {
    for (const r of routes) {
      const c = cases[routeKey(r)];
      if (!c || r.auth === 'none') continue;
      // FreeRADIUS reads a 401 as "reject this user": a caller without its secret gets a 5xx
      // (an edge hands the region's answers to its FreeRADIUS: the same).
      const denied = r.auth === 'radius' || r.auth === 'edge' ? 502 : 401;
      expect([c.expect.none, c.expect.expired, c.expect.forged], routeKey(r)).toEqual([
        denied,
        denied,
        denied,
      ]);
      if (r.auth === 'admin') {
        expect([c.expect.subscriber, c.expect.otherReseller, c.expect.owner], routeKey(r)).toEqual([
          403, 403, 403,
        ]);
      }
      if (r.auth === 'reseller') expect(c.expect.subscriber, routeKey(r)).toBe(403);
      // An agent passes no reseller or admin route, whatever the case says.
      if (r.auth === 'reseller' || r.auth === 'admin') {
        expect([expectedOf(c, r.auth, 'agent'), expectedOf(c, r.auth, 'otherAgent')], routeKey(r)).toEqual([
          403, 403,
        ]);
      }
      if (r.auth === 'agent')
        expect([c.expect.subscriber, c.expect.otherAgent], routeKey(r)).toEqual([403, 404]);
    }
  });
});

describe('security matrix: every route x every caller', () => {
  let cast: Cast | undefined;
  const getCast = async () => {
    cast ??= await makeCast();
    return cast;
  };

  for (const r of routes) {
    const key = routeKey(r);
    const c = cases[key];
    if (!c) continue;
    it.each(PRINCIPALS.map((who) => [who, expectedOf(c, r.auth, who)] as const))(
      `${key} as %s -> %i`,
      async (who, status) => {
        const theCast = await getCast();
        const req = await c.request(theCast, who, server.url());
        const token = theCast.tokens[who];
        const path = req.path.startsWith('/') ? req.path : `${r.path}${req.path}`;
        const res = await call(r.plane === 'front' ? server.frontUrl() : server.url(), r.method, path, {
          ...(req.body !== undefined ? { body: req.body } : {}),
          ...(token ? { token } : {}),
          ...(req.headers ? { headers: req.headers } : {}),
        });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
      },
    );
  }
});
