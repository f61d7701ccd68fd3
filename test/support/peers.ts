import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { supervise } from '../../bin/local/child.js';
import { freePort } from '../../bin/local/dynamodb-local.js';
import { freeUdpPort } from '../../bin/local/freeradius.js';

/**
 * Real network peers for the canary tests, on loopback: Unbound and FreeRADIUS from Debian's
 * packages (`apt-get install unbound freeradius freeradius-utils`; `.ci/run` installs them),
 * and a small HTTP server for the portal and data checks. A missing binary is an error with the
 * install command, never a skip: CI must not pass by testing nothing.
 */

export interface Peer {
  host: string;
  port: number;
  stop: () => Promise<void>;
}

const INSTALL_HINT =
  'install it with `sudo apt-get install -y unbound freeradius freeradius-utils` (Debian/Ubuntu; `.ci/run` does this)';

/** The path of a binary, searched in PATH and the sbin folders Debian installs daemons in. */
function binary(name: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin', '/usr/local/sbin']) {
    if (!dir) continue;
    const path = join(dir, name);
    if (spawnSync('test', ['-x', path]).status === 0) return path;
  }
  throw new Error(`${name} was not found: ${INSTALL_HINT}`);
}

/**
 * Waits until `ready()` holds, failing with the child's output if it exits first. No deadline of
 * its own: a busy machine may take long to start a server (the hook's timeout guards a hang).
 */
async function waitUntil(
  what: string,
  child: ChildProcess,
  output: () => string,
  ready: () => Promise<boolean>,
): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}:\n${output()}`);
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface UnboundOptions {
  /** Names redirected to the sinkhole, as a blocklist does (`local-zone: redirect`). */
  blocked: Record<string, string>;
  /** Zones answered locally with NXDOMAIN for every name not listed (`local-zone: static`). */
  staticZones?: string[];
}

/**
 * Unbound on 127.0.0.1:<free port>, unprivileged, in the foreground, with a blocklist of
 * `local-zone: redirect` entries (no root, no chroot, no daemon: a test can run it as any user).
 * Ready when it answers a query.
 */
export async function startUnbound(options: UnboundOptions): Promise<Peer> {
  const bin = binary('unbound');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'canary-unbound-'));
  const zones = [
    ...(options.staticZones ?? []).map((z) => `  local-zone: "${z}." static`),
    ...Object.entries(options.blocked).flatMap(([name, ip]) => [
      `  local-zone: "${name}." redirect`,
      `  local-data: "${name}. 60 IN A ${ip}"`,
    ]),
  ];
  writeFileSync(
    join(dir, 'unbound.conf'),
    [
      'server:',
      '  interface: 127.0.0.1',
      `  port: ${port}`,
      '  do-ip6: no',
      '  do-daemonize: no',
      '  username: ""',
      '  chroot: ""',
      `  directory: "${dir}"`,
      '  pidfile: ""',
      '  use-syslog: no',
      '  logfile: ""',
      '  verbosity: 0',
      '  module-config: "iterator"',
      '  access-control: 127.0.0.0/8 allow',
      ...zones,
      'remote-control:',
      '  control-enable: no',
      '',
    ].join('\n'),
  );
  const child = spawn(bin, ['-d', '-c', join(dir, 'unbound.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, stop } = supervise(child, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  const { promises: dns } = await import('node:dns');
  const probeName = Object.keys(options.blocked)[0] ?? 'localhost';
  await waitUntil('unbound', child, output, async () => {
    const r = new dns.Resolver({ timeout: 200, tries: 1 });
    r.setServers([`127.0.0.1:${port}`]);
    try {
      await r.resolve4(probeName);
      return true;
    } catch (error) {
      return (error as { code?: string }).code === 'ENOTFOUND';
    }
  });
  return { host: '127.0.0.1', port, stop };
}

export interface FreeRadiusOptions {
  /** Shared secret of the client 127.0.0.1. */
  secret: string;
  /** user name -> cleartext password (the `users` file of the `files` module). */
  users: Record<string, string>;
}

/**
 * The main section of a radiusd.conf whose files all live in `dir` (a peer's own, in a temp
 * folder), logging to stdout; `modconfdir` points the stock modules' queries elsewhere.
 */
export function radiusdMain(dir: string, o: { maxRequests: number; modconfdir?: string }): string {
  return `prefix = /usr
exec_prefix = /usr
sysconfdir = /etc
localstatedir = ${dir}
sbindir = /usr/sbin
logdir = ${dir}
raddbdir = ${dir}
radacctdir = ${dir}
name = freeradius
confdir = ${dir}
${o.modconfdir ? `modconfdir = ${o.modconfdir}\n` : ''}run_dir = ${dir}
libdir = /usr/lib/freeradius
pidfile = ${dir}/radiusd.pid
max_request_time = 5
cleanup_delay = 1
max_requests = ${o.maxRequests}
hostname_lookups = no
log {
  destination = stdout
}
security {
  allow_core_dumps = no
  max_attributes = 200
  reject_delay = 0
  status_server = no
}`;
}

/**
 * FreeRADIUS on 127.0.0.1:<free UDP port>, in the foreground (`-X`), with the smallest
 * configuration that authenticates PAP users from a `users` file (its own directory of
 * configuration, so the system's /etc/freeradius is never read). Ready when it says so on its
 * output.
 */
export async function startFreeRadius(options: FreeRadiusOptions): Promise<Peer> {
  const bin = binary('freeradius');
  const port = await freeUdpPort();
  const dir = mkdtempSync(join(tmpdir(), 'canary-radius-'));
  const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  writeFileSync(
    join(dir, 'users'),
    Object.entries(options.users)
      .map(([user, password]) => `${quote(user)} Cleartext-Password := ${quote(password)}\n`)
      .join(''),
  );
  writeFileSync(
    join(dir, 'radiusd.conf'),
    `${radiusdMain(dir, { maxRequests: 1024 })}
client canary {
  ipaddr = 127.0.0.1
  secret = ${quote(options.secret)}
}
modules {
  pap {
  }
  files {
    filename = ${dir}/users
  }
}
server default {
  listen {
    type = auth
    ipaddr = 127.0.0.1
    port = ${port}
  }
  authorize {
    files
    pap
  }
  authenticate {
    pap
  }
}
`,
  );
  const child = spawn(bin, ['-X', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, stop } = supervise(child, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  await waitUntil('freeradius', child, output, async () => output().includes('Ready to process requests'));
  return { host: '127.0.0.1', port, stop };
}

// A UDP port nothing listens on now (for RADIUS, and for the "no answer" case): the local host's.
export { freeUdpPort };

export const PORTAL_MARKER = 'data-hotspot-portal="v1"';
export const DATA_BYTES = 256 * 1024;

/** What the fixture web server counts, so tests can see it was really asked. */
export interface WebPeer extends Peer {
  url: (path: string) => string;
  hits: Map<string, number>;
}

/**
 * The captive portal and the download server of the tests, on 127.0.0.1:
 * `/portal` (200 with the marker), `/portal-500`, `/portal-plain` (200 without the marker),
 * `/data` (DATA_BYTES bytes), `/data-truncated` (announces DATA_BYTES, closes half way),
 * `/data-short` (chunked, ends early), `/status-ok`, `/status-500`, `/status-bad` (API status
 * stand-ins), `/hang` (never answers).
 */
export async function startWebPeer(): Promise<WebPeer> {
  const hits = new Map<string, number>();
  const payload = Buffer.alloc(DATA_BYTES, 0x61);
  const hanging = new Set<ServerResponse>();
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/portal': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body ${PORTAL_MARKER}><h1>WiFi</h1></body></html>`);
    },
    '/portal-500': (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(`<html><body ${PORTAL_MARKER}>Internal Server Error</body></html>`);
    },
    '/portal-plain': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>It works!</body></html>');
    },
    '/data': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(DATA_BYTES),
      });
      res.end(payload);
    },
    '/data-truncated': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(DATA_BYTES),
      });
      res.write(payload.subarray(0, DATA_BYTES / 2), () => res.socket?.destroy());
    },
    '/data-short': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(payload.subarray(0, DATA_BYTES - 1000));
    },
    '/status-ok': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 'operational',
          components: [{ name: 'api', status: 'operational' }],
          updated_at: new Date().toISOString(),
        }),
      );
    },
    '/status-500': (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"ERR_INTERNAL","message":"Internal error"}}');
    },
    '/status-bad': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hello":"world"}');
    },
    '/hang': (_req, res) => {
      hanging.add(res);
    },
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (route) return route(req, res);
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    hits,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
