import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEdge } from '../../bin/edge-build.js';
import type { Replica } from '../../functions/edge/replica.js';

/**
 * The in-country edge as a machine runs it, for the fault tests: its built bundle in a process of
 * its own (killed with SIGKILL, its disk filled), and a region that speaks the edge routes' wire
 * format (FreeRADIUS's JSON attributes, the region's status codes) and can be cut, throttled or
 * slowed as the international link and API Gateway do it.
 */

/** A FreeRADIUS rest body: `{ name: { type, value: [v] } }`. */
export const radiusBody = (attrs: Record<string, string | number>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(attrs).map(([name, value]) => [
      name,
      { type: typeof value === 'number' ? 'integer' : 'string', value: [value] },
    ]),
  );

/** An Interim (or Start, Stop) as FreeRADIUS sends it: one session's running total. */
export const report = (session: string, code: string, total: number, status = 'Interim-Update') =>
  radiusBody({
    'Acct-Status-Type': status,
    'User-Name': code,
    'Acct-Session-Id': session,
    'Acct-Unique-Session-Id': session,
    'NAS-Identifier': 'access_edge',
    'Calling-Station-Id': '02:00:00:00:00:01',
    'Acct-Input-Octets64': String(Math.floor(total / 4)),
    'Acct-Output-Octets64': String(total - Math.floor(total / 4)),
  });

export type RegionMode = 'up' | 'cut' | 'refuse' | 'throttle' | 'fail';

/** A region: what it took (accounting by session id and total), and how it answers now. */
export interface FakeRegion {
  url: string;
  mode: RegionMode;
  /** Accounting taken: `<session> <total>` once per report (a second copy is counted too). */
  taken: string[];
  /** Paths asked, in order. */
  asked: string[];
  replica: Replica;
  setMode: (mode: RegionMode) => void;
  close: () => Promise<void>;
}

export const emptyReplica = (): Replica => ({
  edge_id: 'e',
  generated_at: new Date().toISOString(),
  routers: [],
  nas: [],
  codes: [],
});

const readJson = async (req: IncomingMessage): Promise<Record<string, { value: string[] }>> => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
};

export async function fakeRegion(mode: RegionMode = 'up'): Promise<FakeRegion> {
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const region: FakeRegion = {
    url: '',
    mode,
    taken: [],
    asked: [],
    replica: emptyReplica(),
    setMode: (next) => {
      region.mode = next;
      // The cable mended: what was lost in it is lost, the edge's calls fail and are sent again.
      if (next !== 'cut') for (const res of held) res.destroy();
      held.clear();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    region.asked.push(req.url ?? '');
    if (region.mode === 'cut') return held.add(res);
    if (region.mode === 'refuse') return res.destroy();
    if (region.mode === 'throttle') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      return res.end('{"message":"Too Many Requests"}');
    }
    if (region.mode === 'fail') {
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end('{"message":"Service Unavailable"}');
    }
    const body = await readJson(req);
    const json = (status: number, value?: unknown) => {
      res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
      res.end(value === undefined ? undefined : JSON.stringify(value));
    };
    switch (req.url) {
      case '/api/v1/edge/replica':
        // A first sync in one page each time (functions/edge/replica.ts): no cursor handed out.
        return json(200, {
          ...region.replica,
          generated_at: new Date().toISOString(),
          kind: 'full',
          removed: [],
        });
      case '/api/v1/edge/radius/accounting': {
        const total =
          Number(body['Acct-Input-Octets64']?.value[0] ?? 0) +
          Number(body['Acct-Output-Octets64']?.value[0] ?? 0);
        region.taken.push(`${body['Acct-Unique-Session-Id']?.value[0]} ${total}`);
        return json(204);
      }
      case '/api/v1/edge/radius/client':
        return json(404, {});
      default:
        return json(200, { 'control:Auth-Type': { value: 'Accept', do_xlat: false } });
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  region.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return region;
}

let bundle: string | undefined;
/** The edge's folder as `npm run edge:build` makes it, built once per test file. */
export async function edgeBundle(): Promise<string> {
  bundle ??= await buildEdge(mkdtempSync(join(tmpdir(), 'hotspot-edge-build-')));
  return bundle;
}

export interface EdgeProcess {
  child: ChildProcess;
  url: string;
  /** Every line it printed. */
  lines: string[];
  /** Resolves with the first line (already printed or to come) matching `pattern`. */
  waitFor: (pattern: RegExp) => Promise<string>;
  /** Sends FreeRADIUS's call to the edge, as its FreeRADIUS does (the local bearer). */
  call: (route: string, body: unknown) => Promise<Response>;
  /** Its peak resident memory (VmHWM, bytes), read from /proc. */
  peakRss: () => number;
  stop: () => Promise<void>;
}

const running = new Set<ChildProcess>();
/** Kills every edge process this file started and left running (a failed test's). */
export function killEdgeProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export const LOCAL_SECRET = 'edge-test-local-secret';
const TOKEN = `edge_00000000-0000-4000-8000-000000000000.${'A'.repeat(43)}`;

/**
 * Starts the bundled edge service as its unit does (its environment, its token from a file).
 * `wrap` prefixes the command (a mount namespace with a small disk, a file size limit).
 */
export async function startEdgeProcess(o: {
  dataDir: string;
  regionUrl: string;
  env?: Record<string, string>;
  wrap?: string[];
}): Promise<EdgeProcess> {
  const folder = await edgeBundle();
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'edge-token-')), 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const command = [...(o.wrap ?? []), process.execPath, join(folder, 'edge.mjs')];
  const child = spawn(command[0] as string, command.slice(1), {
    env: {
      PATH: process.env.PATH,
      EDGE_REGION_URL: o.regionUrl,
      EDGE_TOKEN_FILE: tokenFile,
      EDGE_LOCAL_SECRET: LOCAL_SECRET,
      EDGE_DATA_DIR: o.dataDir,
      EDGE_PORT: '0',
      EDGE_PROBE_S: '0.2',
      EDGE_FORWARD_TIMEOUT_MS: '300',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: string[] = [];
  const waiters: { pattern: RegExp; done: (line: string) => void }[] = [];
  let partial = '';
  const take = (d: Buffer) => {
    partial += d.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters])
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done(line);
        }
    }
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = once(child, 'exit');
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((done, fail) => {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return done(seen);
      waiters.push({ pattern, done });
      void exited.then(([code, signal]) =>
        fail(new Error(`edge exited (${code ?? signal}) before printing ${pattern}:\n${lines.join('\n')}`)),
      );
    });
  const url = /listening on (\S+);/.exec(await waitFor(/edge listening on/))?.[1] as string;
  return {
    child,
    url,
    lines,
    waitFor,
    call: (route, body) =>
      fetch(`${url}/api/v1/radius/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${LOCAL_SECRET}` },
        body: JSON.stringify(body),
      }),
    peakRss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Whether this process may mount a file system in a namespace of its own (root, or a user namespace). */
export function mountNamespace(): string[] | undefined {
  const prefix =
    process.getuid?.() === 0 ? ['unshare', '--mount'] : ['unshare', '--user', '--map-root-user', '--mount'];
  try {
    execFileSync(prefix[0] as string, [...prefix.slice(1), 'sh', '-c', 'mount -t tmpfs tmpfs /mnt'], {
      stdio: 'ignore',
    });
    return prefix;
  } catch {
    return undefined;
  }
}

/** What the link proxy does to one request: pass it (after `delayMs`), or answer it itself. */
export type LinkFault =
  | { delayMs?: number }
  | { status: number; body: string; headers?: Record<string, string> };

export interface LinkProxy {
  /** The region as the edge reaches it. */
  url: string;
  /** Cuts the cable (requests hang, as over a cut cable) or mends it (what hung is lost). */
  setCut: (cut: boolean) => void;
  /** Requests asked, by path. */
  count: Record<string, number>;
  /** Emits `path` for each request. */
  asked: EventEmitter;
  close: () => Promise<void>;
}

/**
 * The international link between an edge and its region (the real local API): a proxy that
 * passes everything, hangs everything once cut, or applies `fault(path)` (a slow answer, a 5xx,
 * API Gateway's 429) to a request.
 */
export async function linkProxy(
  target: string,
  fault?: (path: string) => LinkFault | undefined,
): Promise<LinkProxy> {
  const api = new URL(target);
  let cut = false;
  const held = new Set<ServerResponse>();
  const count: Record<string, number> = {};
  const asked = new EventEmitter();
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    count[path] = (count[path] ?? 0) + 1;
    asked.emit('path', path);
    if (cut) return held.add(res);
    const f = fault?.(path);
    if (f && 'status' in f) {
      res.writeHead(f.status, { 'content-type': 'application/json', ...f.headers });
      return res.end(f.body);
    }
    const forward = request(
      { host: api.hostname, port: api.port, path, method: req.method, headers: req.headers },
      (answer) => {
        const pass = () => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        // A cold start: the region answers, late.
        if (f?.delayMs) setTimeout(pass, f.delayMs);
        else pass();
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const setCut = (next: boolean) => {
    cut = next;
    if (next) return;
    for (const res of held) res.destroy();
    held.clear();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setCut,
    count,
    asked,
    close: async () => {
      setCut(false);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A replica of one UDP router `rtr_<name>` at NAS id `access_<name>` and one code, as the region
 * hands it out: what an edge decides logins from.
 */
export function oneCodeReplica(
  name: string,
  code: Partial<Replica['codes'][number]> & { code: string },
  generatedAt = new Date().toISOString(),
): Replica {
  return {
    edge_id: 'e',
    generated_at: generatedAt,
    routers: [
      {
        router_id: `rtr_${name}`,
        reseller_id: 'r1',
        transport: 'udp',
        source_ip: '192.0.2.9',
        secret: 'a-router-secret',
        nas_ids: [`access_${name}`],
      },
    ],
    nas: [{ nas_id: `access_${name}`, reseller_id: 'r1', vendor: 'mikrotik' }],
    codes: [
      {
        reseller_id: 'r1',
        offer: { duration_hours: 2, data_limit_mb: 0, cir_kbps: 256, mir_kbps: 1024, max_devices: 2 },
        used_bytes: 0,
        ...code,
      },
    ],
  };
}

/** Writes the edge's state file (offline.ts's) holding `replica` into `dir`, as a run leaves it. */
export function writeEdgeState(dir: string, replica: Replica): void {
  writeFileSync(
    join(dir, 'state.json'),
    JSON.stringify({ replica, sessions: {}, leases: {}, unsynced: {}, started: {} }),
  );
}
