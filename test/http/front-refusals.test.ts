import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { metrics } from '../../functions/core/metrics-emf.mjs';
import { getSecret } from '../../functions/core/secrets.js';
import { register } from '../../functions/routers/routers.js';
import { Access } from '../../functions/store/access-codes.js';
import { paidCode } from '../support/access.js';
import { hotspotOf } from '../support/hotspots.js';
import { useLocalServer } from '../support/http.js';

// The RADIUS front refusing everyone is counted (functions/front/service.ts): each login call,
// each refusal by reason (an unknown code, a router that may not speak for the hotspot, an
// internal error) and each failed accounting call, as FreeRADIUS gets them from the front's
// service over HTTP. The FrontRefusingLogins and FrontErrors alarms read these counts
// (lib/observability.ts, test/infra/monitoring-table.test.ts).

const server = useLocalServer({ front: true });

/** The counts published since the test began, summed by metric name. */
let counted: Record<string, number> = {};
beforeEach(() => {
  counted = {};
  vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => {
    const doc = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
    };
    for (const { Name } of doc._aws.CloudWatchMetrics[0]?.Metrics ?? []) {
      const v = doc[Name];
      const sum = Array.isArray(v) ? v.reduce((a: number, b: number) => a + b, 0) : Number(v);
      counted[Name] = (counted[Name] ?? 0) + sum;
    }
    metrics.clearMetrics();
    return metrics;
  });
});
afterEach(() => vi.restoreAllMocks());

const attr = (v: string | number) => ({ type: typeof v === 'number' ? 'integer' : 'string', value: [v] });

/** A call of the front's FreeRADIUS to its service. */
async function radius(route: 'authorize' | 'post-auth' | 'accounting', body: Record<string, unknown>) {
  const res = await fetch(`${server.frontUrl()}/api/v1/radius/${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await getSecret('RADIUS_API_SECRET')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (process.env.DEBUG_FRONT) console.log(route, res.status, text);
  return res.status;
}

/** A reseller's hotspot with its router and one paid code. */
async function hotspot() {
  const resellerId = randomUUID();
  const nasId = await hotspotOf(resellerId, 'access_front');
  const { router } = await register({
    reseller_id: resellerId,
    name: 'R',
    nas_ids: [nasId],
    transport: 'radsec',
  });
  const code = paidCode(resellerId);
  await Access.put(code);
  return { nasId, routerId: router.router_id, serial: router.cert_serial as string, code: code.code };
}

/** What FreeRADIUS sends for a RadSec router's login: the router by its certificate's CN and serial. */
const login = (
  h: { nasId: string; routerId: string; serial: string },
  code: string,
  mac = '02:00:00:00:39:01',
) => ({
  'User-Name': attr(code),
  'User-Password': attr(code),
  'NAS-Identifier': attr(h.nasId),
  'Calling-Station-Id': attr(mac),
  'Hotspot-Router-Id': attr(h.routerId),
  'Hotspot-Router-Cert-Serial': attr(h.serial),
});

describe("the front's answers, counted by reason", () => {
  it('counts every login call, an unknown code and a router speaking for another hotspot as refusals of their own, an accepted login as none', async () => {
    // Prepare
    const a = await hotspot();
    const b = await hotspot();

    // Act: an accepted login, two unknown codes, and router B speaking for A's hotspot.
    expect(await radius('authorize', login(a, a.code))).toBe(200);
    expect(await radius('authorize', login(a, 'NOSUCHCODE1'))).toBe(401);
    expect(await radius('authorize', login(a, 'NOSUCHCODE2'))).toBe(401);
    expect(await radius('authorize', { ...login(a, a.code), 'Hotspot-Router-Id': attr(b.routerId) })).toBe(
      401,
    );

    // Assess
    expect(counted).toMatchObject({ FrontLoginCalls: 4, FrontRefusedUnknownCode: 2, FrontRefusedRouter: 1 });
    expect(counted.FrontRefusedOther).toBeUndefined();
    expect(counted.FrontLoginErrors).toBeUndefined();
  });

  it('counts the logins and reports it fails inside when DynamoDB refuses it (its table gone), which FreeRADIUS turns into refusals', async () => {
    // Prepare: a working hotspot, then the service's table is not there (a wrong name, a role
    // without its grant: DynamoDB answers an error for every call).
    const a = await hotspot();
    const saved = process.env.TABLE_NAME;
    process.env.TABLE_NAME = `missing-${randomUUID()}`;
    resetConfig();
    try {
      // Act
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push(await radius('authorize', login(a, a.code, `02:00:00:00:39:1${i}`)));
      statuses.push(
        await radius('accounting', {
          'Acct-Status-Type': attr('Interim-Update'),
          'User-Name': attr(a.code),
          'NAS-Identifier': attr(a.nasId),
          'Calling-Station-Id': attr('02:00:00:00:39:10'),
          'Acct-Session-Id': attr('s1'),
          'Acct-Unique-Session-Id': attr(randomUUID()),
          'Acct-Input-Octets': attr(10),
          'Acct-Output-Octets': attr(10),
          'Acct-Session-Time': attr(60),
          'Hotspot-Router-Id': attr(a.routerId),
          'Hotspot-Router-Cert-Serial': attr(a.serial),
        }),
      );

      // Assess: every call a 5xx, each counted as the front's own failure.
      expect(statuses.every((s) => s >= 500)).toBe(true);
      expect(counted).toMatchObject({
        FrontLoginCalls: 3,
        FrontLoginErrors: 3,
        FrontAccountingCalls: 1,
        FrontAccountingErrors: 1,
      });
    } finally {
      process.env.TABLE_NAME = saved;
      resetConfig();
    }
  });
});
