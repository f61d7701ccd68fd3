// The shipped FreeRADIUS configuration run locally with its run.sh, on free ports.

import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { accessSync, constants, cpSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFrontService } from '../../lib/front-bundle.js';
import { type LocalProcess, supervise } from './child.js';

/** The FreeRADIUS configuration shipped in the repository (run by operators with its run.sh). */
export const FREERADIUS_CONFIG_DIR = fileURLToPath(new URL('../../deploy/freeradius', import.meta.url));

/** Where Debian's freeradius-rest package puts the module the configuration depends on. */
const REST_MODULE = '/usr/lib/freeradius/rlm_rest.so';

export const FREERADIUS_INSTALL_HINT =
  'FreeRADIUS is not installed: `sudo apt-get install -y freeradius freeradius-rest freeradius-utils` ' +
  '(Debian/Ubuntu; freeradius-rest holds the rest module, freeradius-utils holds radclient)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A binary from PATH or the sbin folders Debian installs daemons in (often not in a user's PATH). */
export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  return dirs
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(executable);
}

/** Whether `startFreeRadius` can work here: the daemon and its rest module are installed. */
export function freeRadiusAvailable(): boolean {
  try {
    accessSync(REST_MODULE, constants.R_OK);
  } catch {
    return false;
  }
  return findBinary('freeradius') !== undefined;
}

/** A UDP port nothing listens on now, on loopback. */
export function freeUdpPort(): Promise<number> {
  return new Promise((done, fail) => {
    const socket = createSocket('udp4');
    socket.once('error', fail);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => done(port));
    });
  });
}

/** A TCP port nothing listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface FreeRadiusOptions {
  /**
   * Where FreeRADIUS sends its calls (RADIUS_API_URL; the routes /api/v1/radius/... are
   * appended) instead of the front's own service: a stand-in, or a proxy in front of a service.
   * Give this or `service`.
   */
  apiUrl?: string;
  /**
   * Runs the front's service as the task does: bundled into the run folder
   * (lib/front-bundle.ts) and started by run.sh before FreeRADIUS, on loopback at `port` (a free
   * one when omitted), with `env` (the table, the DynamoDB endpoint, ROUTER_SEAL_KEY, ...).
   */
  service?: { env: Record<string, string>; port?: number };
  /** Bearer secret between FreeRADIUS and its service or `apiUrl` (RADIUS_API_SECRET). */
  apiSecret: string;
  /** UDP ports; a free one is picked when omitted. */
  authPort?: number;
  acctPort?: number;
  /** TCP port of the RadSec listener; a free one is picked when omitted. */
  tlsPort?: number;
  /** Address to listen on (default 127.0.0.1). */
  listenAddr?: string;
  /**
   * Network UDP routers may send from (default 127.0.0.0/8: every loopback address, so that
   * routers registered at 127.x.y.z are told apart by their source address).
   */
  clientIpAddr?: string;
  /**
   * The secret the Disconnect relay signs its Disconnect-Requests with (RADIUS_SECRET): the
   * routers' `/radius incoming` must share it. Not a login secret: routers log in with their own.
   */
  secret?: string;
  /** Seconds a UDP router's definition is cached (RADIUS_CLIENT_LIFETIME; default 60). */
  clientLifetimeS?: number;
  /**
   * The RadSec listener's files (the router CA, the server's certificate and key), given to
   * run.sh in RADIUS_TLS_CA_PEM, RADIUS_TLS_CERT_PEM and RADIUS_TLS_KEY_PEM, as ECS gives them
   * from the front's certificate secret; run.sh writes them into the run folder's tls/. Without
   * them, run.sh refuses to start unless that folder already holds them.
   */
  tls?: { ca_pem: string; cert_pem: string; key_pem: string };
  /**
   * Folder the configuration is copied into and run from; emptied first, kept after stop.
   * Default: a temporary folder, removed on stop.
   */
  runDir?: string;
  /** File the server's log is appended to (default: `radius.log` in the run folder). */
  logFile?: string;
  /**
   * Runs the Disconnect relay (RFC 5176, deploy/freeradius/disconnect-relay.mjs) next to it, as
   * run.sh does by default: how often it asks the API and how long a router has to answer.
   * Off when omitted (a stand-in API would be asked for disconnects it does not know).
   */
  disconnect?: { pollMs?: number; timeoutMs?: number };
}

/** A FreeRADIUS process on loopback: its ports, its pid, its last lines and how to stop it. */
export interface LocalRadiusServer extends LocalProcess {
  authPort: number;
  acctPort: number;
}

export interface RunningFreeRadius extends LocalRadiusServer {
  tlsPort: number;
  /** The front's service, when run.sh started it (`service`). */
  serviceUrl?: string;
  /** The router CA's certificate file the RadSec listener checks clients against. */
  caFile: string;
  listenAddr: string;
  clientIpAddr: string;
  apiUrl: string;
  runDir: string;
  logFile: string;
}

const READY = 'Ready to process requests';
/** FreeRADIUS's own start, and its service's (the routers loaded) first. */
const START_TIMEOUT_MS = 30_000;

/**
 * Runs the shipped configuration (`deploy/freeradius`) as it runs near the routers: copied into
 * a folder this process owns, started through its `run.sh` (so the same checks apply) in the
 * foreground without `-X` (which is single-threaded and logs secrets). Resolves once the server
 * says it is ready (about 0.1 s); rejects with its output if it exits first. The server is
 * killed when this process exits.
 */
export async function startFreeRadius(options: FreeRadiusOptions): Promise<RunningFreeRadius> {
  if (!freeRadiusAvailable()) throw new Error(FREERADIUS_INSTALL_HINT);
  const authPort = options.authPort ?? (await freeUdpPort());
  let acctPort = options.acctPort ?? (await freeUdpPort());
  while (acctPort === authPort) acctPort = await freeUdpPort();
  const tlsPort = options.tlsPort ?? (await freePort());
  const listenAddr = options.listenAddr ?? '127.0.0.1';
  const clientIpAddr = options.clientIpAddr ?? '127.0.0.0/8';
  if (!options.apiUrl === !options.service) throw new Error('startFreeRadius: give apiUrl or service');
  const servicePort = options.service ? (options.service.port ?? (await freePort())) : undefined;
  const apiUrl = options.apiUrl?.replace(/\/+$/, '') ?? `http://127.0.0.1:${servicePort}`;

  const temporary = options.runDir === undefined;
  const runDir = options.runDir ? resolve(options.runDir) : mkdtempSync(join(tmpdir(), 'freeradius-'));
  if (!temporary) rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  cpSync(FREERADIUS_CONFIG_DIR, runDir, { recursive: true });
  // The service as the image holds it: service/main.mjs beside run.sh.
  if (options.service) await bundleFrontService(join(runDir, 'service'));
  const tlsDir = join(runDir, 'tls');
  const logFile = options.logFile ?? join(runDir, 'radius.log');
  const log = createWriteStream(logFile, { flags: 'a' });

  const child = spawn('sh', [join(runDir, 'run.sh')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      // Node's own folder first: run.sh starts the Disconnect relay with `node`.
      PATH: [dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(delimiter),
      // The configuration logs timestamps in local time: keep the operator's zone.
      ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
      ...(options.service
        ? { ...options.service.env, RADIUS_SERVICE_PORT: String(servicePort) }
        : { RADIUS_API_URL: apiUrl }),
      RADIUS_API_SECRET: options.apiSecret,
      // Seconds to wait for the API (run.sh defaults it to 2): the test run's stack waits longer.
      ...(process.env.RADIUS_API_TIMEOUT ? { RADIUS_API_TIMEOUT: process.env.RADIUS_API_TIMEOUT } : {}),
      RADIUS_CLIENT_IPADDR: clientIpAddr,
      RADIUS_CLIENT_LIFETIME: String(options.clientLifetimeS ?? 60),
      RADIUS_LISTEN_ADDR: listenAddr,
      RADIUS_AUTH_PORT: String(authPort),
      RADIUS_ACCT_PORT: String(acctPort),
      ...(options.disconnect
        ? {
            RADIUS_DISCONNECT: 'on',
            RADIUS_DISCONNECT_POLL_MS: String(options.disconnect.pollMs ?? 1000),
            RADIUS_DISCONNECT_TIMEOUT_MS: String(options.disconnect.timeoutMs ?? 3000),
          }
        : { RADIUS_DISCONNECT: 'off' }),
      ...(options.secret ? { RADIUS_SECRET: options.secret } : {}),
      RADIUS_TLS_PORT: String(tlsPort),
      RADIUS_TLS_DIR: tlsDir,
      ...(options.tls
        ? {
            RADIUS_TLS_CA_PEM: options.tls.ca_pem,
            RADIUS_TLS_CERT_PEM: options.tls.cert_pem,
            RADIUS_TLS_KEY_PEM: options.tls.key_pem,
          }
        : {}),
    },
  });
  const { output, stop } = supervise(child, {
    onData: (data) => log.write(data),
    cleanup: () =>
      new Promise<void>((closed) =>
        log.end(() => {
          if (temporary) rmSync(runDir, { recursive: true, force: true });
          closed();
        }),
      ),
  });

  try {
    await waitForReady(child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    authPort,
    acctPort,
    tlsPort,
    caFile: join(tlsDir, 'ca.pem'),
    listenAddr,
    clientIpAddr,
    apiUrl,
    ...(options.service ? { serviceUrl: apiUrl } : {}),
    runDir,
    logFile,
    pid: child.pid as number,
    output,
    stop,
  };
}

function waitForReady(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((done, fail) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', exited);
    };
    const check = () => {
      if (output().includes(READY)) {
        cleanup();
        done();
      }
    };
    const exited = (code: number | null) => {
      cleanup();
      fail(new Error(`freeradius exited (code ${code}) before it was ready:\n${output()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      fail(new Error(`freeradius was not ready within ${START_TIMEOUT_MS} ms:\n${output()}`));
    }, START_TIMEOUT_MS);
    child.stdout?.on('data', check);
    child.once('exit', exited);
    check();
  });
}
