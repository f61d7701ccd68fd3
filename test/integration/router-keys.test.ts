import { randomUUID, X509Certificate } from 'node:crypto';
import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { toAppError } from '../../functions/core/errors.js';
import { getSecret } from '../../functions/core/secrets.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { replicaPage } from '../../functions/edge/replica.js';
import { resetRouterKeys } from '../../functions/routers/keys-client.js';
import { handler as keysFunction } from '../../functions/routers/router-keys.js';
import { register, rotate } from '../../functions/routers/routers.js';
import { open } from '../../functions/routers/secret-box.js';
import { revokeEdge } from '../../functions/store/edges.js';
import { getRouter, type RouterRecord } from '../../functions/store/routers.js';
import { useTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';

// The public functions that register routers and answer edges ask the router keys function
// (functions/routers/router-keys.ts) through Lambda's Invoke, with ROUTER_KEYS_FUNCTION set as
// the stack sets it. Lambda is the mock here: it hands each call to the keys function's own
// handler, in this process, with the keys of the environment, as the function would in AWS.

useTestTable();

const lambda = mockClient(LambdaClient);
/** The calls the public side sent, decoded. */
let sent: Record<string, unknown>[] = [];

beforeEach(() => {
  sent = [];
  process.env.ROUTER_KEYS_FUNCTION = 'Hotspot-test-RouterKeys';
  resetRouterKeys();
  lambda.reset();
  lambda.on(InvokeCommand, { FunctionName: 'Hotspot-test-RouterKeys' }).callsFake(async (input) => {
    const call = JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array)) as Record<string, unknown>;
    sent.push(call);
    try {
      const answer = await keysFunction(call);
      return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(answer)) };
    } catch (error) {
      return {
        StatusCode: 200,
        FunctionError: 'Unhandled',
        Payload: new TextEncoder().encode(JSON.stringify({ errorMessage: (error as Error).message })),
      };
    }
  });
});
afterEach(() => {
  delete process.env.ROUTER_KEYS_FUNCTION;
  resetRouterKeys();
});
afterAll(() => lambda.restore());

/** A hotspot of a new reseller and the router registered for it. */
async function udpRouter(
  resellerId = randomUUID(),
  ip = `198.51.100.${Math.floor(Math.random() * 200) + 20}`,
) {
  const nasId = await hotspotOf(resellerId, 'access_keys');
  return register({ reseller_id: resellerId, name: 'R', nas_ids: [nasId], transport: 'udp', source_ip: ip });
}

describe('a public function using the router keys', () => {
  it("seals a new UDP router's secret through the keys function, which the front opens with the sealing key", async () => {
    // Act
    const { router, credentials } = await udpRouter();

    // Assess: one call, the router's id and its new secret; the box opens with the key.
    expect(sent).toEqual([
      { op: 'seal', router_id: router.router_id, secret: (credentials as { secret: string }).secret },
    ]);
    const stored = (await getRouter(router.router_id)) as RouterRecord;
    expect(open(await getSecret('ROUTER_SEAL_KEY'), router.router_id, stored.secret_box as string)).toBe(
      (credentials as { secret: string }).secret,
    );
  });

  it("has a RadSec router's certificate signed by the CA inside the keys function, and a new one on rotation", async () => {
    // Act
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_keys');
    const { router, credentials } = await register({
      reseller_id: resellerId,
      name: 'R',
      nas_ids: [nasId],
      transport: 'radsec',
    });
    const rotated = await rotate((await getRouter(router.router_id)) as RouterRecord);

    // Assess
    expect(sent.map((c) => c.op)).toEqual(['certificate', 'certificate']);
    const first = credentials as { certificate_pem: string; ca_pem: string; serial: string };
    const cert = new X509Certificate(first.certificate_pem);
    expect(cert.verify(new X509Certificate(first.ca_pem).publicKey)).toBe(true);
    expect(cert.subject).toContain(router.router_id);
    expect((rotated.credentials as { serial: string }).serial).not.toBe(first.serial);
    expect((await getRouter(router.router_id))?.cert_serial).toBe(
      (rotated.credentials as { serial: string }).serial,
    );
  });

  it("answers an edge's replica with its own resellers' routers' secrets, for its token only", async () => {
    // Prepare: two resellers' routers, an edge for the first one only.
    const mine = await udpRouter();
    const other = await udpRouter();
    const { edge, token } = await registerEdge({
      name: 'Abidjan',
      reseller_ids: [mine.router.reseller_id],
      addresses: ['192.0.2.40'],
      nowIso: clock.iso(),
    });
    const principal = { role: 'edge' as const, edgeId: edge.edge_id, resellerIds: edge.reseller_ids };
    sent = [];

    // Act
    const replica = await replicaPage(principal, {}, clock.now(), `Bearer ${token}`);

    // Assess: its router with its secret, not the other reseller's; the token went along.
    expect((replica.routers ?? []).map((r) => [r.router_id, r.secret])).toEqual([
      [mine.router.router_id, (mine.credentials as { secret: string }).secret],
    ]);
    expect(sent).toEqual([{ op: 'edge-secrets', authorization: `Bearer ${token}` }]);

    // A public function that asks with the principal of an edge but another token (or a revoked
    // edge's) gets no secret at all: the keys function checks the token itself.
    const forged = await replicaPage(
      { ...principal, resellerIds: [other.router.reseller_id] },
      {},
      clock.now(),
      `Bearer edge_${randomUUID()}.${'x'.repeat(43)}`,
    );
    expect((forged.routers ?? []).map((r) => r.secret)).toEqual([undefined]);
    await revokeEdge(edge.edge_id, clock.iso());
    expect(
      ((await replicaPage(principal, {}, clock.now(), `Bearer ${token}`)).routers ?? []).map((r) => r.secret),
    ).toEqual([undefined]);
  });

  it('answers 503, retry later, when the keys function cannot be invoked (throttled)', async () => {
    // Prepare: Lambda refuses the invocation.
    lambda
      .on(InvokeCommand)
      .rejects(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {} }));

    // Act + Assess: nothing registered, and a retryable answer, not a 500.
    const error = await udpRouter().catch((e: unknown) => e);
    expect(toAppError(error).status).toBe(503);
  });

  it('refuses a call that is not one of its operations', async () => {
    await expect(keysFunction({ op: 'open', router_id: 'rtr_aaaaaaaaaaaa', box: 'x' })).rejects.toThrow(
      /not a call/,
    );
    await expect(keysFunction({ op: 'seal', router_id: '../etc', secret: 's' })).rejects.toThrow(
      /not a router id/,
    );
  });
});
