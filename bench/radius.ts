import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import radius from 'radius';
import { startFakeNas } from '../bin/local/fake-nas.js';
import { findBinary, startFreeRadius } from '../bin/local/freeradius.js';
import { getSecret } from '../functions/core/secrets.js';
import { frontTls, register } from '../functions/routers/routers.js';
import { Access } from '../functions/store/access-codes.js';
import { setNasCoa } from '../functions/store/nas.js';
import { getSession } from '../functions/store/sessions.js';
import { paidCode } from '../test/support/access.js';
import type { DdbProbe } from '../test/support/ddb-instrument.js';
import { hotspotOf } from '../test/support/hotspots.js';
import { startFreeRadius as startFilesFreeRadius } from '../test/support/peers.js';
import { startRadsecRouter } from '../test/support/radsec.js';

/**
 * The RADIUS edge under load: Access-Requests and Accounting-Requests sent from this process
 * over UDP (the `radius` package, no process per request), through Debian's FreeRADIUS with
 * the shipped config, to the local API and DynamoDB Local: once over UDP (a router registered
 * at 127.0.0.1 with its own secret), once over RadSec as a RouterOS 7 router speaks it (the same
 * client -> Debian's radsecproxy with a registered router's certificate -> FreeRADIUS's TLS
 * listener; radsecproxy's own hop is in those figures). The floor is the same client against
 * FreeRADIUS answering from its own `users` file over UDP, with no API behind it.
 */
export interface RadiusFigure {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** DynamoDB commands per request (undefined for the floor, which has no API). */
  ddb_calls_per_request?: number;
  answered: number;
}

const SECRET = 'bench-radius-secret';
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

type Attributes = [string, string | number][];

/** Sends `total` packets with `parallel` in flight; every reply is checked against its request. */
async function blast(
  port: number,
  secret: string,
  kind: 'Access-Request' | 'Accounting-Request',
  packets: (i: number) => Attributes,
  options: { total: number; parallel: number },
): Promise<{ latencies: number[]; answered: number; elapsedS: number }> {
  const socket = createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const pending = new Map<number, { started: number; done: (ok: boolean) => void }>();
  socket.on('message', (msg) => {
    const id = msg[1] as number;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    p.done(true);
  });
  const latencies: number[] = [];
  let answered = 0;
  let next = 0;
  let identifier = 0;
  const started = performance.now();
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      identifier = (identifier + 1) % 256;
      while (pending.has(identifier)) identifier = (identifier + 1) % 256;
      const id = identifier;
      const packet = radius.encode({
        code: kind,
        secret,
        identifier: id,
        // Every router client requires Message-Authenticator (BlastRADIUS).
        ...(kind === 'Access-Request'
          ? { authenticator: randomBytes(16), add_message_authenticator: true }
          : {}),
        attributes: packets(i),
      });
      const t0 = performance.now();
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve();
      }, 5000);
      pending.set(id, {
        started: t0,
        done: () => {
          clearTimeout(timer);
          latencies.push(performance.now() - t0);
          answered++;
          resolve();
        },
      });
      socket.send(packet, port, '127.0.0.1');
    });
  await Promise.all(
    Array.from({ length: options.parallel }, async () => {
      while (next < options.total) await one(next++);
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  socket.close();
  latencies.sort((a, b) => a - b);
  return { latencies, answered, elapsedS };
}

function figure(name: string, r: Awaited<ReturnType<typeof blast>>, calls?: number): RadiusFigure {
  return {
    name,
    requests: r.latencies.length,
    rps: r.answered / r.elapsedS,
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    ...(calls === undefined ? {} : { ddb_calls_per_request: calls }),
    answered: r.answered,
  };
}

/** Seeds a hotspot and `n` codes of its reseller; returns the NAS id and the codes. */
async function seedCodes(n: number): Promise<{ nasId: string; codes: string[]; resellerId: string }> {
  const resellerId = randomUUID();
  const nasId = await hotspotOf(resellerId, 'access_bench');
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    // A purchase's code: a voucher's would also need its voucher item (its first login redeems it).
    const code = paidCode(resellerId, {}, { code: `B${String(i).padStart(9, '0')}`, source_id: 'bench' });
    await Access.put(code);
    codes.push(code.code);
  }
  return { nasId, codes, resellerId };
}

/** Authorize, Start and Interim-Update of `codes`, sent to `port` with `secret`. */
async function exchanges(
  label: string,
  target: { authPort: number; acctPort: number; secret: string },
  nasId: string,
  codes: string[],
  probe: DdbProbe,
  parallel: number,
): Promise<RadiusFigure[]> {
  const total = codes.length;
  const out: RadiusFigure[] = [];
  const mac = (i: number) =>
    `02:00:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  /** One exchange of every code, its DynamoDB calls counted per answered request. */
  const measured = async (
    name: string,
    port: number,
    kind: 'Access-Request' | 'Accounting-Request',
    packets: (i: number) => Attributes,
  ) => {
    probe.reset();
    const r = await blast(port, target.secret, kind, packets, { total, parallel });
    return figure(name, r, probe.calls.length / Math.max(1, r.answered));
  };
  out.push(
    await measured(
      `${label}: authorize (Access-Request -> Accept)`,
      target.authPort,
      'Access-Request',
      (i) => [
        ['User-Name', codes[i] as string],
        ['User-Password', codes[i] as string],
        ['NAS-Identifier', nasId],
        ['Calling-Station-Id', mac(i)],
      ],
    ),
  );
  const session = (i: number) => `bench-${label}-${i}`;
  const accounting =
    (status: string, extra: Attributes = []) =>
    (i: number): Attributes => [
      ['Acct-Status-Type', status],
      ['User-Name', codes[i] as string],
      ['NAS-Identifier', nasId],
      ['NAS-IP-Address', '127.0.0.1'],
      ['Acct-Session-Id', session(i)],
      ['Calling-Station-Id', mac(i)],
      ...extra,
    ];
  out.push(
    await measured(`${label}: accounting Start`, target.acctPort, 'Accounting-Request', accounting('Start')),
  );
  out.push(
    await measured(
      `${label}: accounting Interim-Update`,
      target.acctPort,
      'Accounting-Request',
      accounting('Interim-Update', [
        ['Acct-Input-Octets', 1_000_000],
        ['Acct-Output-Octets', 9_000_000],
        ['Acct-Session-Time', 300],
      ]),
    ),
  );
  return out;
}

/** How often the relay asks the API for due Disconnect-Requests in the bench (its default, as deployed). */
const DISCONNECT_POLL_MS = 1000;
const DISCONNECTS = 20;

/**
 * Disconnect round trips (RFC 5176), one at a time: `POST /sessions/{id}/disconnect` -> the
 * relay next to FreeRADIUS claims it (polling every DISCONNECT_POLL_MS) -> the fake router
 * ACKs -> the relay reports -> the session reads closed (checked every 10 ms in the table). The
 * floor: radclient's own Disconnect-Request to the same fake router, a process per request.
 */
async function disconnectFigures(
  apiUrl: string,
  adminToken: string,
  nasId: string,
  sessions: { code: string; acctSessionId: string }[],
): Promise<RadiusFigure[]> {
  const nas = await startFakeNas(SECRET);
  try {
    await setNasCoa(nasId, { port: nas.port });
    const latencies: number[] = [];
    // The part after the router got the request: its ACK, the relay's report, the close.
    const afterReceipt: number[] = [];
    const started = performance.now();
    for (const s of sessions) {
      const id = createHash('md5').update(`${s.code},${s.acctSessionId},127.0.0.1,${nasId},,`).digest('hex');
      const t0 = performance.now();
      const res = await fetch(`${apiUrl}/api/v1/sessions/${id}/disconnect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}` },
      });
      if (res.status !== 202) throw new Error(`disconnect answered ${res.status}: ${await res.text()}`);
      const deadline = t0 + 10_000;
      while ((await getSession(id))?.status !== 'closed' && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      if (performance.now() < deadline) {
        latencies.push(performance.now() - t0);
        const got = nas.received.find((r) => r.attributes['Acct-Session-Id'] === s.acctSessionId);
        if (got) afterReceipt.push(performance.now() - got.at);
      }
    }
    const elapsedS = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    afterReceipt.sort((a, b) => a - b);
    const rows = [
      figure(`Disconnect round trip (API -> relay, ${DISCONNECT_POLL_MS} ms poll -> router ACK -> closed)`, {
        latencies,
        answered: latencies.length,
        elapsedS,
      }),
      figure('  of which: the router got it -> ACK, report, session closed', {
        latencies: afterReceipt,
        answered: afterReceipt.length,
        elapsedS,
      }),
    ];

    const radclient = findBinary('radclient');
    if (radclient) {
      const floor: number[] = [];
      const floorStarted = performance.now();
      for (let i = 0; i < sessions.length; i++) {
        const t0 = performance.now();
        await new Promise<void>((done) => {
          const child = spawn(radclient, [
            '-t',
            '2',
            '-r',
            '1',
            `127.0.0.1:${nas.port}`,
            'disconnect',
            SECRET,
          ]);
          child.once('close', () => done());
          child.stdin.end(
            `User-Name = "${sessions[i]?.code}"\nAcct-Session-Id = "floor-${i}"\nNAS-Identifier = "${nasId}"\nMessage-Authenticator = 0x00\n`,
          );
        });
        floor.push(performance.now() - t0);
      }
      floor.sort((a, b) => a - b);
      rows.push(
        figure('floor: radclient Disconnect-Request -> the same fake router (a process each)', {
          latencies: floor,
          answered: nas.received.filter((r) =>
            r.attributes['Acct-Session-Id']?.toString().startsWith('floor-'),
          ).length,
          elapsedS: (performance.now() - floorStarted) / 1000,
        }),
      );
    }
    return rows;
  } finally {
    await nas.close();
  }
}

export async function radiusFigures(
  apiUrl: string,
  probe: DdbProbe,
  total = 1000,
  adminToken?: string,
): Promise<RadiusFigure[]> {
  const parallel = 20;
  const out: RadiusFigure[] = [];
  const tls = await frontTls('localhost');
  const edge = await startFreeRadius({
    apiUrl,
    apiSecret: await getSecret('RADIUS_API_SECRET'),
    tls,
    secret: SECRET,
    disconnect: { pollMs: DISCONNECT_POLL_MS, timeoutMs: 3000 },
  });
  try {
    const { nasId, codes, resellerId } = await seedCodes(2 * total + 40 + DISCONNECTS);
    // This process is the UDP router at 127.0.0.1 (its own secret); the RadSec router has a certificate.
    await register(
      {
        reseller_id: resellerId,
        name: 'Bench UDP',
        nas_ids: [nasId],
        transport: 'udp',
        source_ip: '127.0.0.1',
      },
      { secret: SECRET },
    );
    const { credentials } = await register({
      reseller_id: resellerId,
      name: 'Bench RadSec',
      nas_ids: [nasId],
      transport: 'radsec',
    });
    const cert = credentials as Extract<typeof credentials, { transport: 'radsec' }>;
    const proxy = await startRadsecRouter(cert, edge.tlsPort);
    try {
      const udp = { authPort: edge.authPort, acctPort: edge.acctPort, secret: SECRET };
      // radsecproxy takes both kinds on one port and sends them down its one TLS connection.
      const radsec = { authPort: proxy.port, acctPort: proxy.port, secret: proxy.secret };
      // Warm the API's connections, FreeRADIUS's pool, the client cache and the TLS connection.
      const warm = (t: { authPort: number; secret: string }, from: number) =>
        blast(
          t.authPort,
          t.secret,
          'Access-Request',
          (i) => [
            ['User-Name', codes[from + i] as string],
            ['User-Password', codes[from + i] as string],
            ['NAS-Identifier', nasId],
          ],
          { total: 20, parallel: 5 },
        );
      await warm(udp, 2 * total);
      await warm(radsec, 2 * total + 20);
      out.push(...(await exchanges('UDP', udp, nasId, codes.slice(0, total), probe, parallel)));
      out.push(...(await exchanges('RadSec', radsec, nasId, codes.slice(total, 2 * total), probe, parallel)));
      // The live sessions the Disconnect round trips cut: each started by the UDP router.
      const cut = codes.slice(2 * total + 40, 2 * total + 40 + DISCONNECTS);
      const started = await blast(
        udp.acctPort,
        udp.secret,
        'Accounting-Request',
        (i) => [
          ['Acct-Status-Type', 'Start'],
          ['User-Name', cut[i] as string],
          ['NAS-Identifier', nasId],
          ['NAS-IP-Address', '127.0.0.1'],
          ['Acct-Session-Id', `bench-${i}`],
        ],
        { total: DISCONNECTS, parallel: 5 },
      );
      if (started.answered !== DISCONNECTS)
        throw new Error(`${started.answered} of ${DISCONNECTS} sessions to disconnect started`);
    } finally {
      await proxy.stop();
    }

    if (adminToken)
      out.push(
        ...(await disconnectFigures(
          apiUrl,
          adminToken,
          nasId,
          codes
            .slice(2 * total + 40, 2 * total + 40 + DISCONNECTS)
            .map((code, i) => ({ code, acctSessionId: `bench-${i}` })),
        )),
      );
  } finally {
    await edge.stop();
  }

  // The floor: FreeRADIUS answering from its own users file, no API.
  const floor = await startFilesFreeRadius({ secret: SECRET, users: { bench: 'bench' } });
  try {
    const r = await blast(
      floor.port,
      SECRET,
      'Access-Request',
      () => [
        ['User-Name', 'bench'],
        ['User-Password', 'bench'],
      ],
      {
        total,
        parallel,
      },
    );
    out.push(figure('floor: FreeRADIUS from its users file (UDP)', r));
  } finally {
    await floor.stop();
  }
  return out;
}

/** p50 over its floor's p50 (a Disconnect over the Disconnect floor, the rest over FreeRADIUS's users file). */
const ratio = (f: RadiusFigure, floor: RadiusFigure | undefined) =>
  floor ? (f.p50 / floor.p50).toFixed(1) : '–';

/** The markdown section of the figures. */
export function radiusSection(figures: RadiusFigure[]): string[] {
  const floor = figures.find((f) => f.name.startsWith('floor: FreeRADIUS'));
  const disconnectFloor = figures.find((f) => f.name.startsWith('floor: radclient Disconnect'));
  const lines = [
    '## RADIUS through FreeRADIUS and the local API',
    '',
    '| exchange | requests | answered | req/s | p50 ms | p99 ms | DynamoDB calls/req | p50 / floor |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of figures) {
    lines.push(
      `| ${f.name} | ${f.requests} | ${f.answered} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${
        f.ddb_calls_per_request === undefined ? '–' : f.ddb_calls_per_request.toFixed(1)
      } | ${ratio(f, /disconnect|router/i.test(f.name) ? disconnectFloor : floor)} |`,
    );
  }
  lines.push('');
  return lines;
}
