import { EventEmitter, once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFreeRadius, startFreeRadius } from '../../bin/local/freeradius.js';
import { frontTls, register, revoke } from '../../functions/routers/routers.js';
import { Nas } from '../../functions/store/nas.js';
import { getRouter } from '../../functions/store/routers.js';
import { useTestTable } from '../support/db.js';
import { type RadiusAttributes, type RadiusReply, radclient } from '../support/radius.js';
import { eventually } from '../support/wait.js';

// Routers never wait on DynamoDB (docs/radius.md, "The front's service"): the front's service,
// started by the shipped run.sh beside the shipped FreeRADIUS configuration, answers from the
// routers it holds in memory while every request to DynamoDB is held by a proxy. Each assertion
// is about order (answered before the proxy released anything), not about time.

const RESELLER = 'stall-reseller';
const OTHER_RESELLER = 'stall-other';
const NAS = 'access_stall_own';
const OTHER_NAS = 'access_stall_other';
const REFUSED = 'Routeur non autorisé pour ce hotspot';

/**
 * A TCP proxy in front of DynamoDB Local that, once `hold()` is called, holds every byte sent
 * to DynamoDB until `release()`, and at least 2 s: the service's DynamoDB calls hang as with a
 * DynamoDB that answers 2 s late (or later).
 */
class HoldingProxy extends EventEmitter {
  private holding = false;
  private heldSince = 0;
  private pending: (() => void)[] = [];
  private readonly sockets = new Set<Socket>();
  /** Chunks held since the last `hold()`, and forwarded after their release in all. */
  held = 0;
  released = 0;
  readonly server: Server;

  constructor(upstream: URL) {
    super();
    this.server = createServer((client) => {
      const up = connect(Number(upstream.port), upstream.hostname);
      this.sockets.add(client).add(up);
      const forward = (chunk: Buffer) => () => {
        if (!up.destroyed) up.write(chunk);
      };
      client.on('data', (chunk: Buffer) => {
        if (this.holding || this.pending.length) {
          this.pending.push(forward(chunk));
          if (this.holding) {
            this.held++;
            this.emit('held');
          }
        } else up.write(chunk);
      });
      up.pipe(client);
      const close = () => {
        client.destroy();
        up.destroy();
      };
      client.on('error', close).on('close', close);
      up.on('error', close).on('close', close);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  hold(): void {
    this.holding = true;
    this.held = 0;
    this.heldSince = Date.now();
  }

  /** Forwards what was held, in order, once 2 s have passed since `hold()`. */
  async release(): Promise<void> {
    const wait = this.heldSince + 2000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.holding = false;
    const pending = this.pending.splice(0);
    this.released += pending.length;
    for (const send of pending) send();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

useTestTable();
let proxy: HoldingProxy;
let radius: RunningFreeRadius;
/** A router FreeRADIUS has a client for; one the front loaded at start that FreeRADIUS never saw. */
let known: { routerId: string; ip: string; secret: string };
let loaded: { routerId: string; ip: string; secret: string };

// Each exchange waits 8 s for its answer: what is checked is whether an answer comes while
// DynamoDB is held (the front answers from memory) or none does, not how soon a busy machine
// answers; only an exchange that must go unanswered waits less.
const as = (router: { ip: string; secret: string }) => ({
  status: (timeoutS = 8): Promise<RadiusReply> =>
    radclient(
      'status',
      { 'Message-Authenticator': '0x00', 'Packet-Src-IP-Address': router.ip },
      { port: radius.authPort, secret: router.secret, timeoutS },
    ),
  auth: (attrs: RadiusAttributes, timeoutS = 8): Promise<RadiusReply> =>
    radclient(
      'auth',
      { 'Message-Authenticator': '0x00', ...attrs, 'Packet-Src-IP-Address': router.ip },
      { port: radius.authPort, secret: router.secret, timeoutS },
    ),
});

const login = (nasId: string) => ({
  'User-Name': 'ABCDEFGH',
  'User-Password': 'ABCDEFGH',
  'NAS-Identifier': nasId,
});

async function udpRouter(ip: string) {
  const { router, credentials } = await register({
    reseller_id: RESELLER,
    name: 'Stall',
    nas_ids: [NAS],
    transport: 'udp',
    source_ip: ip,
  });
  return { routerId: router.router_id, ip, secret: (credentials as { secret: string }).secret };
}

beforeAll(async () => {
  await Nas.put({ nas_id: NAS, reseller_id: RESELLER, reseller_name: 'Stall', vlan_id: 10, kind: 'vlan' });
  await Nas.put({
    nas_id: OTHER_NAS,
    reseller_id: OTHER_RESELLER,
    reseller_name: 'Other',
    vlan_id: 11,
    kind: 'vlan',
  });
  known = await udpRouter('127.77.0.1');
  loaded = await udpRouter('127.77.0.3');
  proxy = new HoldingProxy(new URL(process.env.DYNAMODB_ENDPOINT as string));
  const endpoint = await proxy.listen();
  const pass = (names: string[]) =>
    Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n] as string]] : [])));
  radius = await startFreeRadius({
    // The service as the task runs it, on this file's table, its DynamoDB behind the proxy.
    service: {
      env: {
        ...pass([
          'STAGE',
          'AWS_REGION',
          'TABLE_NAME',
          'ROUTER_SEAL_KEY',
          'DYNAMODB_REQUEST_TIMEOUT_MS',
          'DYNAMODB_CONNECT_TIMEOUT_MS',
          'LOG_LEVEL',
          'POWERTOOLS_METRICS_DISABLED',
        ]),
        DYNAMODB_ENDPOINT: endpoint,
        ROUTERS_REFRESH_MS: '200',
      },
    },
    apiSecret: process.env.RADIUS_API_SECRET as string,
    tls: await frontTls('localhost'),
  });
  // FreeRADIUS learns the known router (it adds at most one new client a second).
  await eventually(async () => (await as(known).status()).code !== 'timeout');
}, 60_000);

let stopped = false;
afterAll(async () => {
  await proxy?.release();
  if (!stopped) await radius?.stop();
  await proxy?.close();
});

describe('the front while DynamoDB does not answer', () => {
  it("answers known routers' Status-Server (a new client's lookup included) and refuses a login for a NAS id not the router's from memory; an unknown router gets no client until DynamoDB answers", async () => {
    // Prepare: DynamoDB held, and the service's background read of the routers held in it.
    proxy.hold();
    const before = proxy.released;
    await once(proxy, 'held');
    // A router registered now (straight into the table): the front does not know it yet.
    const fresh = await udpRouter('127.77.0.2');

    // Act
    const status = await as(known).status();
    // Its first packet: FreeRADIUS asks the service for its client, answered from memory.
    const firstPacket = await as(loaded).status();
    const refused = await as(known).auth(login(OTHER_NAS));
    const unknown = await as(fresh).status(1);
    const releasedWhileAnswering = proxy.released;
    await proxy.release();

    // Assess: answered from memory while every DynamoDB request was held.
    expect(status.code).not.toBe('timeout');
    expect(firstPacket.code).not.toBe('timeout');
    expect(refused.code).toBe('Access-Reject');
    expect(refused.attributes['Reply-Message']).toEqual([REFUSED]);
    expect(releasedWhileAnswering).toBe(before);
    expect(proxy.held).toBeGreaterThan(0);
    // The unknown address got nothing (its lookup was held); once DynamoDB answers, the router's
    // next retransmission finds its client.
    expect(unknown.code).toBe('timeout');
    await eventually(async () => (await as(fresh).status()).code !== 'timeout');
  }, 60_000);

  it('refuses a revoked router from memory once its directory read the revocation (ROUTERS_REFRESH_MS)', async () => {
    // Prepare: revoked in the table, by the API's own code.
    const router = await getRouter(known.routerId);
    if (!router) throw new Error('no router');
    await revoke(router);

    // Act
    // Each try with DynamoDB held: only a refusal the front holds in memory answers then. The
    // front holds the revocation within its refresh (FreeRADIUS still holds the router's client
    // definition for its lifetime, so its login reaches the service).
    let refused: RadiusReply | undefined;
    let releasedWhileAnswering = -1;
    let before = 0;
    await eventually(async () => {
      proxy.hold();
      before = proxy.released;
      await once(proxy, 'held');
      refused = await as(known).auth(login(NAS));
      releasedWhileAnswering = proxy.released;
      await proxy.release();
      // Refused by the front's memory, with the router's message; FreeRADIUS's own reject when
      // the service waited on DynamoDB past its timeout (not held yet) is not that.
      return refused.code === 'Access-Reject' && refused.attributes['Reply-Message']?.[0] === REFUSED;
    });

    // Assess: refused with the router's message, decided without a read.
    expect(refused?.attributes['Reply-Message']).toEqual([REFUSED]);
    expect(releasedWhileAnswering).toBe(before);
  }, 60_000);
});

describe('the service beside FreeRADIUS', () => {
  it('exits when FreeRADIUS exits (run.sh became FreeRADIUS: the service is its child)', async () => {
    // Prepare
    const health = `${radius.serviceUrl}/health`;
    expect((await fetch(health)).status).toBe(200);

    // Act
    stopped = true;
    await radius.stop();

    // Assess: nothing answers on its port any more.
    await eventually(async () =>
      fetch(health).then(
        () => false,
        () => true,
      ),
    );
  });
});
