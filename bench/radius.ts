import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import radius from 'radius';
import { startFakeNas } from '../bin/local/fake-nas.js';
import { findBinary, freePort, startFreeRadius } from '../bin/local/freeradius.js';
import { startStreamConsumers } from '../bin/local/streams.js';
import { getSecret } from '../functions/core/secrets.js';
import { registerEdge } from '../functions/edge/edge-auth.js';
import { startEdge } from '../functions/edge-service/service.js';
import { frontTls, register } from '../functions/routers/routers.js';
import { Access } from '../functions/store/access-codes.js';
import { setNasCoa } from '../functions/store/nas.js';
import { getSession } from '../functions/store/sessions.js';
import { paidCode } from '../test/support/access.js';
import { hotspotOf } from '../test/support/hotspots.js';
import { startFreeRadius as startFilesFreeRadius } from '../test/support/peers.js';
import { startRadsecRouter } from '../test/support/radsec.js';
import { type SqlDatabase, startSqlRadius } from '../test/support/sql-radius.js';

/**
 * The RADIUS edge under load: Access-Requests and Accounting-Requests sent from this process
 * over UDP (the `radius` package, no process per request), through Debian's FreeRADIUS with
 * the shipped config, to the local API and DynamoDB Local: once over UDP (a router registered
 * at 127.0.0.1 with its own secret), once over RadSec as a RouterOS 7 router speaks it (the same
 * client -> Debian's radsecproxy with a registered router's certificate -> FreeRADIUS's TLS
 * listener; radsecproxy's own hop is in those figures). The floor is the same client against
 * FreeRADIUS answering from its own `users` file over UDP, with no API behind it.
 *
 * The peers: the same exchanges (authorize, Start, Interim-Update) against FreeRADIUS with rlm_sql,
 * a time and a data counter and one device per user (test/support/sql-radius.ts), the setup
 * daloRADIUS and PHPNuxBill installs run: on SQLite, and on MariaDB (a server the peer starts on
 * loopback). For every exchange, the CPU time each process spent (utime + stime from
 * /proc/<pid>/stat, threads included, read before and after a fixed number of exchanges) over the
 * exchanges answered: FreeRADIUS, the API (a process of its own, bench/radius-api.ts), DynamoDB
 * Local's JVM, radsecproxy on the RadSec rows; and the peers' whole stacks (SQLite is a library
 * inside FreeRADIUS; MariaDB is a process of its own). On a shared 2-core machine, CPU time is the
 * figure that does not depend on who else is running; wall-clock rates are printed beside it.
 */
export interface RadiusFigure {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** DynamoDB commands per request (undefined for the floor, which has no API). */
  ddb_calls_per_request?: number;
  /** Write units per request DynamoDB Local reported for the API's commands. */
  ddb_write_units_per_request?: number;
  /** The stream consumers' DynamoDB commands and write units per request (what the exchanges left them). */
  stream_calls_per_request?: number;
  stream_write_units_per_request?: number;
  answered: number;
  /** Access-Accepts or Accounting-Responses among the answers. */
  accepted?: number;
  /** CPU milliseconds per exchange answered, by process. */
  cpu?: Record<string, number>;
}

/** The API process: where it answers (the front's service; the API), and its DynamoDB command count. */
interface ApiProcess {
  url: string;
  apiUrl: string;
  pid: number;
  reset: () => void;
  calls: () => Promise<{ calls: number; writeUnits: number }>;
  stop: () => Promise<void>;
}

/** DynamoDB use per exchange: the API's and the stream consumers'. */
interface DdbUse {
  calls: number;
  writeUnits: number;
  streamCalls?: number;
  streamWriteUnits?: number;
}

/** Process label -> pid, for the CPU columns. */
type Pids = Record<string, number>;

const TICK_MS =
  1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100);

/** CPU time a process has used, in ms: utime + stime of all its threads (/proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * Runs `run` and returns its result with each process's CPU ms per answered exchange. `settle`,
 * when given, is waited for before the CPU is read again: the work the exchanges left to the
 * stream consumers (a Start's counting) is charged to them, not to the next kind of exchange.
 */
async function withCpu<T extends { answered: number }>(
  pids: Pids,
  run: () => Promise<T>,
  settle?: () => Promise<void>,
): Promise<T & { cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  const result = await run();
  await settle?.();
  const cpu = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [
      k,
      (cpuMs(pid) - (before[k] ?? 0)) / Math.max(1, result.answered),
    ]),
  );
  return { ...result, cpu };
}

/** Starts bench/radius-api.ts with this process's environment; resolves once it listens. */
async function startApi(): Promise<ApiProcess> {
  const prof = process.env.BENCH_API_PROF;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
      '--import',
      'tsx',
      new URL('./radius-api.ts', import.meta.url).pathname,
    ],
    // It holds its routers as read (RADIUS_ROUTER_HOLD_S), as the front's RADIUS service holds
    // them in memory: a request's router is judged without a DynamoDB call.
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, RADIUS_ROUTER_HOLD_S: '600' } },
  );
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const { url, apiUrl } = await new Promise<{ url: string; apiUrl: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the API process exited (${code}) before it listened`)));
    child.on('message', (m: { kind: string; url?: string; apiUrl?: string }) => {
      if (m.kind === 'ready' && m.url && m.apiUrl) resolve({ url: m.url, apiUrl: m.apiUrl });
    });
  });
  return {
    url,
    apiUrl,
    pid: child.pid as number,
    reset: () => child.send({ kind: 'reset' }),
    calls: () =>
      new Promise((resolve) => {
        const on = (m: { kind: string; calls?: number; writeUnits?: number }) => {
          if (m.kind !== 'calls') return;
          child.off('message', on);
          resolve({ calls: m.calls ?? 0, writeUnits: m.writeUnits ?? 0 });
        };
        child.on('message', on);
        child.send({ kind: 'calls' });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', kill);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ kind: 'stop' });
        setTimeout(kill, 5000).unref();
      }),
  };
}

const SECRET = 'bench-radius-secret';
/** The peers' rows, by database: FreeRADIUS + rlm_sql on each (test/support/sql-radius.ts). */
const PEERS = { sqlite: 'peer, FreeRADIUS + SQLite', mariadb: 'peer, FreeRADIUS + MariaDB' } as const;
const isPeerRow = (f: RadiusFigure) => Object.values(PEERS).some((p) => f.name.startsWith(`${p}:`));
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
): Promise<{ latencies: number[]; answered: number; accepted: number; elapsedS: number }> {
  const socket = createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const pending = new Map<number, { started: number; done: (ok: boolean) => void }>();
  let accepted = 0;
  socket.on('message', (msg) => {
    const id = msg[1] as number;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    // Access-Accept or Accounting-Response.
    if (msg[0] === 2 || msg[0] === 5) accepted++;
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
  return { latencies, answered, accepted, elapsedS };
}

function figure(
  name: string,
  r: Omit<Awaited<ReturnType<typeof blast>>, 'accepted'> & {
    accepted?: number;
    cpu?: Record<string, number>;
  },
  use?: DdbUse,
): RadiusFigure {
  return {
    ...(r.accepted === undefined ? {} : { accepted: r.accepted }),
    ...(r.cpu ? { cpu: r.cpu } : {}),
    name,
    requests: r.latencies.length,
    rps: r.answered / r.elapsedS,
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    ...(use === undefined
      ? {}
      : {
          ddb_calls_per_request: use.calls,
          ddb_write_units_per_request: use.writeUnits,
          ...(use.streamCalls === undefined
            ? {}
            : {
                stream_calls_per_request: use.streamCalls,
                stream_write_units_per_request: use.streamWriteUnits,
              }),
        }),
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

/**
 * Authorize, Start and Interim-Update of `codes` (the password is the code, as a typed code's
 * is), sent to `target`; the CPU each of `pids` spent on each kind, and the API's DynamoDB
 * commands per exchange when `api` is given.
 */
async function exchanges(
  label: string,
  target: { authPort: number; acctPort: number; secret: string },
  nasId: string,
  codes: string[],
  api: ApiProcess | undefined,
  parallel: number,
  pids: Pids,
  settle?: () => Promise<void>,
  streamUsage?: () => Promise<{ calls: number; writeUnits: number }>,
): Promise<RadiusFigure[]> {
  const total = codes.length;
  const out: RadiusFigure[] = [];
  const mac = (i: number) =>
    `02:00:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  const calls = async (answered: number): Promise<DdbUse | undefined> => {
    if (!api) return undefined;
    const n = Math.max(1, answered);
    const own = await api.calls();
    const stream = await streamUsage?.();
    return {
      calls: own.calls / n,
      writeUnits: own.writeUnits / n,
      ...(stream ? { streamCalls: stream.calls / n, streamWriteUnits: stream.writeUnits / n } : {}),
    };
  };
  const reset = async () => {
    api?.reset();
    await streamUsage?.();
  };
  // Every login accepted, every report acknowledged: else the figures would be of failures (the
  // warm-up round, on a cold API, may lose one to FreeRADIUS's API timeout: a router resends).
  const accepted = <T extends { accepted: number }>(kind: string, r: T): T => {
    if (r.accepted !== total && label !== 'warm')
      throw new Error(`${label}: ${kind}: ${r.accepted} of ${total} accepted`);
    return r;
  };
  await reset();
  const authz = await withCpu(
    pids,
    () =>
      blast(
        target.authPort,
        target.secret,
        'Access-Request',
        (i) => [
          ['User-Name', codes[i] as string],
          ['User-Password', codes[i] as string],
          ['NAS-Identifier', nasId],
          ['Calling-Station-Id', mac(i)],
        ],
        { total, parallel },
      ),
    settle,
  );
  out.push(
    figure(
      `${label}: authorize (Access-Request -> Accept)`,
      accepted('authorize', authz),
      await calls(authz.answered),
    ),
  );
  const session = (i: number) => `bench-${label}-${i}`;
  await reset();
  // One device's accounting of its session: the Start and the Interim share these.
  const accounting = (status: string, i: number): [string, string | number][] => [
    ['Acct-Status-Type', status],
    ['User-Name', codes[i] as string],
    ['NAS-Identifier', nasId],
    ['NAS-IP-Address', '127.0.0.1'],
    ['Acct-Session-Id', session(i)],
    ['Calling-Station-Id', mac(i)],
  ];
  const starts = await withCpu(
    pids,
    () =>
      blast(target.acctPort, target.secret, 'Accounting-Request', (i) => accounting('Start', i), {
        total,
        parallel,
      }),
    settle,
  );
  out.push(figure(`${label}: accounting Start`, accepted('Start', starts), await calls(starts.answered)));
  await reset();
  const interims = await withCpu(
    pids,
    () =>
      blast(
        target.acctPort,
        target.secret,
        'Accounting-Request',
        (i) => [
          ...accounting('Interim-Update', i),
          ['Acct-Input-Octets', 1_000_000],
          ['Acct-Output-Octets', 9_000_000],
          ['Acct-Session-Time', 300],
        ],
        { total, parallel },
      ),
    settle,
  );
  out.push(
    figure(
      `${label}: accounting Interim-Update`,
      accepted('Interim', interims),
      await calls(interims.answered),
    ),
  );
  return out;
}

/** How often the relay asks the API for due Disconnect-Requests in the bench (its default, as deployed). */
const DISCONNECT_POLL_MS = 1000;
const DISCONNECTS = 20;
/**
 * Codes of the warm-up round (authorize, Start, Interim each) before the measured ones. After
 * 300, V8 was still compiling the API's hot paths: the first measured round spent about 0.3 ms
 * an authorize on the API's background threads (its main thread's CPU, read apart, was the
 * second round's), and whichever transport went first measured 20-30 % above the other. After
 * 1,000 both rounds agree.
 */
const WARM = 1000;

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

export async function radiusFigures(options: {
  /** DynamoDB Local's JVM, for its CPU column. */
  dynamoPid?: number;
  total?: number;
  adminToken?: string;
}): Promise<RadiusFigure[]> {
  const total = options.total ?? 1000;
  const parallel = 20;
  const out: RadiusFigure[] = [];
  const tls = await frontTls('localhost');
  const api = await startApi();
  // The table's stream consumers in their own process, as `npm start` runs them (each is a Lambda
  // function of its own in AWS): the counting of a Start is their CPU, in a column of its own.
  const consumers = await startStreamConsumers();
  // FreeRADIUS calls the front's service; the operators' routes (a disconnect) are the API's.
  const apiUrl = api.apiUrl;
  let nasId = '';
  let codes: string[] = [];
  let resellerId = '';
  const edge = await startFreeRadius({
    apiUrl: api.url,
    apiSecret: await getSecret('RADIUS_API_SECRET'),
    tls,
    secret: SECRET,
    disconnect: { pollMs: DISCONNECT_POLL_MS, timeoutMs: 3000 },
  });
  try {
    ({ nasId, codes, resellerId } = await seedCodes(2 * total + 40 + DISCONNECTS + WARM));
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
      // And every path of the API compiled by V8 before it is measured: a round of each exchange.
      const warmFrom = 2 * total + 40 + DISCONNECTS;
      await exchanges(
        'warm',
        udp,
        nasId,
        codes.slice(warmFrom, warmFrom + WARM),
        api,
        parallel,
        {},
        consumers.drain,
        consumers.usage,
      );
      const pids: Pids = {
        FreeRADIUS: edge.pid,
        API: api.pid,
        'stream consumer': consumers.pid,
        ...(options.dynamoPid ? { 'DynamoDB Local': options.dynamoPid } : {}),
        'load generator': process.pid,
      };
      out.push(
        ...(await exchanges(
          'UDP',
          udp,
          nasId,
          codes.slice(0, total),
          api,
          parallel,
          pids,
          consumers.drain,
          consumers.usage,
        )),
      );
      out.push(
        ...(await exchanges(
          'RadSec',
          radsec,
          nasId,
          codes.slice(total, 2 * total),
          api,
          parallel,
          { ...pids, radsecproxy: proxy.pid },
          consumers.drain,
          consumers.usage,
        )),
      );
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

    if (options.adminToken)
      out.push(
        ...(await disconnectFigures(
          apiUrl,
          options.adminToken,
          nasId,
          codes
            .slice(2 * total + 40, 2 * total + 40 + DISCONNECTS)
            .map((code, i) => ({ code, acctSessionId: `bench-${i}` })),
        )),
      );
    // The in-country edge during a cut, beside the same floor (docs/outage.md).
    out.push(...(await edgeCutFigures({ apiUrl, resellerId, nasId, total, parallel, tls })));
  } finally {
    await edge.stop();
    await consumers.stop();
    await api.stop();
  }

  // The peers: the same exchanges against FreeRADIUS + rlm_sql on SQLite, then on MariaDB (its
  // server a process of its own, in the peer's CPU: whole stack against whole stack).
  for (const database of ['sqlite', 'mariadb'] as const)
    out.push(...(await peerFigures(database, total, parallel)));

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

/** The same exchanges against a peer: FreeRADIUS + rlm_sql on `database`, its users made first. */
async function peerFigures(database: SqlDatabase, total: number, parallel: number): Promise<RadiusFigure[]> {
  const names = Array.from({ length: total + 20 }, (_, i) => `P${String(i).padStart(9, '0')}`);
  const peer = await startSqlRadius({
    secret: SECRET,
    database,
    users: names.map((name) => ({ name, password: name, seconds: 24 * 3600, octets: 1024 ** 3 })),
  });
  try {
    const target = { authPort: peer.authPort, acctPort: peer.acctPort, secret: SECRET };
    // Warm its pool of database connections and its threads.
    await blast(
      peer.authPort,
      SECRET,
      'Access-Request',
      (i) => [
        ['User-Name', names[total + i] as string],
        ['User-Password', names[total + i] as string],
      ],
      { total: 20, parallel: 5 },
    );
    return await exchanges(PEERS[database], target, 'peer', names.slice(0, total), undefined, parallel, {
      ...peer.pids,
      'load generator': process.pid,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${peer.output()}`);
    });
  } finally {
    await peer.stop();
  }
}

/** p50 over its floor's p50 (a Disconnect over the Disconnect floor, the rest over FreeRADIUS's users file). */
const ratio = (f: RadiusFigure, floor: RadiusFigure | undefined) =>
  floor ? (f.p50 / floor.p50).toFixed(1) : '–';

/** The processes of the CPU table, in its column order. */
const CPU_COLUMNS = [
  'FreeRADIUS',
  'API',
  'stream consumer',
  'DynamoDB Local',
  'radsecproxy',
  'MariaDB',
] as const;

/** What the server side spent on an exchange (every process but the load generator). */
const serverCpu = (f: RadiusFigure) =>
  Object.entries(f.cpu ?? {})
    .filter(([k]) => k !== 'load generator')
    .reduce((a, [, v]) => a + v, 0);

/** What our processes spent on an exchange, DynamoDB Local apart (it stands for DynamoDB, which AWS runs). */
const ownCpu = (f: RadiusFigure) =>
  Object.entries(f.cpu ?? {})
    .filter(([k]) => k !== 'load generator' && k !== 'DynamoDB Local')
    .reduce((a, [, v]) => a + v, 0);

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
  const measured = figures.filter((f) => f.cpu);
  if (measured.length > 0) {
    const kind = (f: RadiusFigure) => f.name.slice(f.name.indexOf(':') + 2);
    const peerOf = (f: RadiusFigure, database: SqlDatabase) =>
      figures.find((p) => p.name.startsWith(`${PEERS[database]}:`) && kind(p) === kind(f));
    const ms = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(3));
    const n = (v: number | undefined, digits = 2) => (v === undefined ? '–' : v.toFixed(digits));
    /** `mine` over the peer's server CPU for the same exchange, `–` without that peer's row. */
    const times = (mine: number, peer: RadiusFigure | undefined) =>
      peer ? (mine / serverCpu(peer)).toFixed(1) : '–';
    lines.push(
      '### CPU per exchange, by process, against the SQL peers',
      '',
      "CPU milliseconds (utime + stime from /proc/<pid>/stat, all threads) per exchange answered, 20 in flight, read once the stream consumer (its own process, as it is its own Lambda function in AWS) has counted what the exchanges left it: the Starts' sessions. The peers are FreeRADIUS + rlm_sql with the stock schema and queries, a time and a data counter and one device per user: on SQLite (WAL; a library inside FreeRADIUS), and on MariaDB (a server of its own, Debian's mariadb-server with its built-in settings, started by the bench on loopback; its CPU in the *MariaDB* column). Measured in the same run with the same load generator. *Server CPU* is every process but the load generator; *× SQLite* and *× MariaDB* its ratio to that peer's for the same exchange.",
      '',
      `| exchange | req/s | ${CPU_COLUMNS.join(' | ')} | server CPU | × SQLite | × MariaDB | load generator |`,
      `|---|---:|${CPU_COLUMNS.map(() => '---:|').join('')}---:|---:|---:|---:|`,
    );
    for (const f of measured) {
      const own = serverCpu(f);
      lines.push(
        `| ${f.name} | ${f.rps.toFixed(0)} | ${CPU_COLUMNS.map((c) => ms(f.cpu?.[c])).join(' | ')} | ${ms(own)} | ${times(
          own,
          peerOf(f, 'sqlite'),
        )} | ${times(own, peerOf(f, 'mariadb'))} | ${ms(f.cpu?.['load generator'])} |`,
      );
    }
    lines.push('');
    const ours = measured.filter((f) => !isPeerRow(f) && peerOf(f, 'sqlite') && peerOf(f, 'mariadb'));
    lines.push(
      '### Our processes against the peers, per exchange',
      '',
      "*Our CPU*: FreeRADIUS, the API, the stream consumers (and radsecproxy on the RadSec rows), DynamoDB Local apart (it stands for DynamoDB, which AWS runs); *peer CPU*: the peer's whole stack (FreeRADIUS with SQLite inside it; FreeRADIUS and MariaDB). The API process holds its routers as read (RADIUS_ROUTER_HOLD_S), as the front's RADIUS service holds them in memory. Latencies at 20 in flight, as the load generator saw them. DynamoDB commands and write units as DynamoDB Local reports them (`ReturnConsumedCapacity`), for the API and, apart, for the stream consumers (a Start's counting, an Interim's code usage). Target: our CPU at most 2x the MariaDB peer's.",
      '',
      '| exchange | our CPU ms | SQLite peer CPU ms | × SQLite | MariaDB peer CPU ms | × MariaDB | p50 / p99 ms | SQLite p50 / p99 ms | MariaDB p50 / p99 ms | API calls | API write units | stream calls | stream write units |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    const missed: string[] = [];
    for (const f of ours) {
      const sqlite = peerOf(f, 'sqlite') as RadiusFigure;
      const mariadb = peerOf(f, 'mariadb') as RadiusFigure;
      if (ownCpu(f) > 2 * serverCpu(mariadb)) missed.push(`${f.name} (${times(ownCpu(f), mariadb)}x)`);
      lines.push(
        `| ${f.name} | ${ms(ownCpu(f))} | ${ms(serverCpu(sqlite))} | ${times(ownCpu(f), sqlite)} | ${ms(serverCpu(mariadb))} | ${times(ownCpu(f), mariadb)} | ${n(f.p50)} / ${n(f.p99)} | ${n(sqlite.p50)} / ${n(sqlite.p99)} | ${n(mariadb.p50)} / ${n(mariadb.p99)} | ${n(f.ddb_calls_per_request, 1)} | ${n(f.ddb_write_units_per_request, 1)} | ${n(f.stream_calls_per_request, 1)} | ${n(f.stream_write_units_per_request, 1)} |`,
      );
    }
    lines.push('', `Over 2x the MariaDB peer's CPU: ${missed.join(', ') || 'none'}.`, '');
  }
  return lines;
}

/**
 * The in-country edge while its region is cut (functions/edge-service/service.ts): a replica fetched from the
 * running API, then the edge restarted with the region unreachable (a closed port), and the same
 * UDP router (127.0.0.1, this process) sending through the edge's own FreeRADIUS, the shipped
 * configuration: logins decided from the replica, Interims journaled (fsync'd) and answered. The
 * journal's bytes per report are printed: a busy hotspot's journal per hour follows from them.
 */
async function edgeCutFigures(o: {
  apiUrl: string;
  resellerId: string;
  nasId: string;
  total: number;
  parallel: number;
  tls: Awaited<ReturnType<typeof frontTls>>;
}): Promise<RadiusFigure[]> {
  const { token } = await registerEdge({
    name: 'Bench edge',
    reseller_ids: [o.resellerId],
    addresses: ['127.0.0.1'],
    nowIso: new Date().toISOString(),
  });
  // Vouchers in stock: the replica carries every one of the reseller's not used up.
  const vouchers: string[] = [];
  for (let i = 0; i < o.total + 20; i++) {
    const code = paidCode(o.resellerId, {}, { code: `E${String(i).padStart(9, '0')}`, source: 'voucher' });
    await Access.put({ ...code, voucher_status: 'active', currency: 'XOF' });
    vouchers.push(code.code);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-edge-'));
  const localSecret = `bench-edge-${randomUUID()}`;
  const first = await startEdge({ regionUrl: o.apiUrl, token, localSecret, dataDir });
  if (!(await first.sync())) throw new Error('the edge got no replica');
  await first.close();
  const dead = await freePort();
  const cut = await startEdge({
    regionUrl: `http://127.0.0.1:${dead}`,
    token,
    localSecret,
    dataDir,
    probeMs: 3_600_000,
  });
  const front = await startFreeRadius({
    apiUrl: cut.url,
    apiSecret: localSecret,
    tls: o.tls,
    secret: SECRET,
  });
  try {
    const login = (from: number, total: number) =>
      blast(
        front.authPort,
        SECRET,
        'Access-Request',
        (i) => [
          ['User-Name', vouchers[from + i] as string],
          ['User-Password', vouchers[from + i] as string],
          ['NAS-Identifier', o.nasId],
          [
            'Calling-Station-Id',
            `02:00:00:${String(from + i)
              .padStart(6, '0')
              .replace(/(..)(..)(..)/, '$1:$2:$3')}`,
          ],
        ],
        { total, parallel: Math.min(o.parallel, 5) },
      );
    // The first call finds the region gone (the link goes down), the client is looked up in the replica.
    await login(o.total, 20);
    if (cut.link() !== 'down') throw new Error('the edge did not see the cut');
    const auth = await login(0, o.total);
    const interim = await blast(
      front.acctPort,
      SECRET,
      'Accounting-Request',
      (i) => [
        ['Acct-Status-Type', 'Interim-Update'],
        ['User-Name', vouchers[i] as string],
        ['NAS-Identifier', o.nasId],
        ['NAS-IP-Address', '127.0.0.1'],
        ['Acct-Session-Id', `edge-${i}`],
        [
          'Calling-Station-Id',
          `02:00:00:${String(i)
            .padStart(6, '0')
            .replace(/(..)(..)(..)/, '$1:$2:$3')}`,
        ],
        ['Acct-Input-Octets', 1_000_000 + i],
        ['Acct-Output-Octets', 9_000_000 + i],
        ['Acct-Session-Time', 600],
      ],
      { total: o.total, parallel: o.parallel },
    );
    const perReport = cut.journal.bytes / Math.max(1, cut.journal.size);
    process.stdout.write(
      `edge journal: ${cut.journal.size} entries, ${cut.journal.bytes} bytes (${perReport.toFixed(0)} bytes a report)\n`,
    );
    return [
      figure('edge during a cut: login from its replica (UDP)', auth),
      figure(`edge during a cut: Interim journaled, fsync'd (${perReport.toFixed(0)} B each)`, interim),
    ];
  } finally {
    await front.stop();
    await cut.close();
  }
}
