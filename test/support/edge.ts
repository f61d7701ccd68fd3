import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
        return json(200, { ...region.replica, generated_at: new Date().toISOString() });
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
