import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFreeRadius, startFreeRadius } from '../../bin/local/freeradius.js';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { issueEdgeTls } from '../../functions/edge/edge-tls.js';
import { startEdge } from '../../functions/edge-service/service.js';
import { register } from '../../functions/routers/routers.js';
import { Access, type AccessCode } from '../../functions/store/access-codes.js';
import { edgeLinksOf, markEdgeRadsec } from '../../functions/store/edges.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { type LinkProxy, linkProxy } from '../support/edge.js';
import { useLocalServer } from '../support/http.js';
import { radclient } from '../support/radius.js';
import { type IssuedRadsec, type Radsecproxy, startRadsecRouter } from '../support/radsec.js';

// Issue 42, item 5: RadSec routers fail over to the edge too. The edge holds a server certificate
// of the router CA (`edges add --tls-out`, `edges tls`): its FreeRADIUS (the shipped configuration)
// terminates the router's TLS as the region's front does, and the router (radsecproxy with the
// router's own certificate) checks it against the CA its script imported.

const server = useLocalServer();
let link: LinkProxy;
let service: Awaited<ReturnType<typeof startEdge>>;
let radius: RunningFreeRadius;
let router: Radsecproxy;
const localSecret = `edge-local-${randomUUID()}`;
const resellerId = randomUUID();
const nasId = `access_rs_${randomUUID().slice(0, 8)}`;
let stock: AccessCode;

beforeAll(async () => {
  link = await linkProxy(server.url());
  await recordReseller({ resellerId, name: 'Cyber Diallo', country: 'SN' });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Cyber Diallo',
    vlan_id: 15,
    kind: 'vlan',
  });
  const issued = await register({
    reseller_id: resellerId,
    name: 'Routeur RadSec',
    nas_ids: [nasId],
    transport: 'radsec',
  });
  stock = {
    ...paidCode(resellerId, { duration_hours: 4 }),
    source: 'voucher',
    voucher_status: 'active',
    currency: 'XOF',
  };
  await Access.put(stock);
  const { edge, token } = await registerEdge({
    name: 'Thiès',
    reseller_ids: [resellerId],
    addresses: ['192.0.2.60'],
    nowIso: clock.iso(),
  });
  const tls = await issueEdgeTls(edge.edge_id, clock.now());
  expect(await markEdgeRadsec(edge.edge_id)).toBe(true);
  service = await startEdge({
    regionUrl: link.url,
    token,
    localSecret,
    dataDir: mkdtempSync(join(tmpdir(), 'hotspot-edge-radsec-')),
    forwardTimeoutMs: 3000,
    answerBudgetMs: 5000,
    probeMs: 100,
  });
  expect(await service.sync()).toBe(true);
  const timeout = process.env.RADIUS_API_TIMEOUT;
  process.env.RADIUS_API_TIMEOUT = '7';
  radius = await startFreeRadius({ apiUrl: service.url, apiSecret: localSecret, tls });
  if (timeout === undefined) delete process.env.RADIUS_API_TIMEOUT;
  else process.env.RADIUS_API_TIMEOUT = timeout;
  router = await startRadsecRouter(issued.credentials as IssuedRadsec, radius.tlsPort);
});

afterAll(async () => {
  await router?.stop();
  await radius?.stop();
  await service?.close();
  await link?.close();
});

const login = (code: string, mac: string) =>
  radclient(
    'auth',
    { 'User-Name': code, 'User-Password': code, 'NAS-Identifier': nasId, 'Calling-Station-Id': mac },
    { port: router.port, secret: router.secret, timeoutS: 12 },
  );

describe('a RadSec router at an edge that holds a certificate of the router CA', () => {
  it("is listed by its reseller's router scripts", async () => {
    expect(await edgeLinksOf(resellerId)).toEqual({ udp: ['192.0.2.60'], radsec: ['192.0.2.60'] });
  });

  it('logs in through the edge while the link is up, and during a cut from its replica', async () => {
    const paid = paidCode(resellerId);
    await Access.put(paid);
    // Forwarded: the region judges the router by its certificate's CN and serial.
    expect((await login(paid.code, '02:00:00:00:60:01')).code).toBe('Access-Accept');
    link.setCut(true);
    const during = await login(stock.code, '02:00:00:00:60:02');
    expect(during.code).toBe('Access-Accept');
    expect(Number(during.attributes['Session-Timeout']?.[0])).toBeLessThanOrEqual(4 * 3600);
  });
});
