import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { findBinary } from '../../bin/local/freeradius.js';

/**
 * `radclient` (Debian's freeradius-utils) as the NAS of the edge tests: it speaks real RADIUS,
 * computes CHAP-Password from a `Cleartext-Password` given in its input, and sends in parallel
 * for load (`-p`).
 */

export type RadiusCode = 'Access-Accept' | 'Access-Reject' | 'Accounting-Response' | 'timeout';

export interface RadiusReply {
  code: RadiusCode;
  /** Reply attributes by name, values as radclient prints them (strings unquoted). */
  attributes: Record<string, string[]>;
  /** Wall time of the exchange, retransmissions included. */
  ms: number;
}

/** Attribute name -> value; an array sends the attribute once per value. */
export type RadiusAttributes = Record<string, string | number | readonly (string | number)[]>;

export interface RadclientTarget {
  port: number;
  secret: string;
  host?: string;
  /** Seconds radclient waits for each try (default 8: the run's stack waits up to 6 s for its API). */
  timeoutS?: number;
  /** Tries in all (default 1: a lost reply is the answer, not something to hide). */
  tries?: number;
}

/** A value as radclient reads it: numbers and 0x-hex bare, everything else quoted. */
function literal(value: string | number): string {
  if (typeof value === 'number' || /^0x[0-9a-f]*$/i.test(value)) return String(value);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** One packet in radclient's input format: one `Attr = value` per line. */
function packet(attributes: RadiusAttributes): string {
  return Object.entries(attributes)
    .flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((v: string | number) => `${name} = ${literal(v)}`),
    )
    .join('\n');
}

function run(args: string[], input: string): Promise<{ output: string; ms: number }> {
  const bin = findBinary('radclient');
  if (!bin) throw new Error('radclient was not found: sudo apt-get install -y freeradius-utils');
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('error', fail);
    // radclient exits 1 when a reply is not the code it expected: the output says what came.
    child.once('close', () => done({ output, ms: Math.round(performance.now() - started) }));
    child.stdin.end(`${input}\n`);
  });
}

const RECEIVED = /^Received (\S+) Id \d+ from /;

/** Parses `radclient -x` output for one request. */
export function parseReply(output: string, ms: number): RadiusReply {
  const lines = output.split('\n');
  const at = lines.findIndex((line) => RECEIVED.test(line));
  if (at < 0) {
    if (/No reply from server/.test(output)) return { code: 'timeout', attributes: {}, ms };
    throw new Error(`radclient gave no reply and no timeout:\n${output}`);
  }
  const code = RECEIVED.exec(lines[at] as string)?.[1] as RadiusCode;
  const attributes: Record<string, string[]> = {};
  for (const line of lines.slice(at + 1)) {
    const m = /^\t(\S+) = (.*)$/.exec(line);
    if (!m) break;
    const [, name = '', raw = ''] = m;
    const value = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    attributes[name] = [...(attributes[name] ?? []), value];
  }
  return { code, attributes, ms };
}

function targetArgs(kind: 'auth' | 'acct' | 'status', target: RadclientTarget): string[] {
  return [
    '-t',
    String(target.timeoutS ?? 8),
    '-r',
    String(target.tries ?? 1),
    `${target.host ?? '127.0.0.1'}:${target.port}`,
    kind,
    target.secret,
  ];
}

/** Sends one Access-Request (`auth`), Accounting-Request (`acct`) or Status-Server and reads the reply. */
export async function radclient(
  kind: 'auth' | 'acct' | 'status',
  attributes: RadiusAttributes,
  target: RadclientTarget,
): Promise<RadiusReply> {
  const { output, ms } = await run(['-x', ...targetArgs(kind, target)], packet(attributes));
  return parseReply(output, ms);
}

export interface BatchResult {
  /** Replies by code, and the requests that got none. */
  counts: Record<RadiusCode, number>;
  ms: number;
}

/**
 * Sends many packets with `parallel` in flight at once (`radclient -p`), for load tests.
 * Counts the replies by code; a request with no reply counts as `timeout`.
 */
export async function radclientBatch(
  kind: 'auth' | 'acct',
  packets: readonly RadiusAttributes[],
  target: RadclientTarget & { parallel: number },
): Promise<BatchResult> {
  // Packets are separated by a blank line in radclient's input.
  const input = packets.map(packet).join('\n\n');
  const { output, ms } = await run(['-x', '-p', String(target.parallel), ...targetArgs(kind, target)], input);
  const counts: Record<RadiusCode, number> = {
    'Access-Accept': 0,
    'Access-Reject': 0,
    'Accounting-Response': 0,
    timeout: 0,
  };
  for (const line of output.split('\n')) {
    const code = RECEIVED.exec(line)?.[1];
    if (code && code in counts) counts[code as RadiusCode] += 1;
    if (/No reply from server/.test(line)) counts.timeout += 1;
  }
  return { counts, ms };
}

/** What `test/support/global-setup.ts` provides as `edge`: the local stack of this test run. */
export interface EdgeContext {
  /** Base URL of the API (`npm start`'s server), e.g. http://127.0.0.1:PORT. */
  apiUrl: string;
  /**
   * Base URL of the RADIUS front's service (functions/front/service.ts), which run.sh starts
   * beside FreeRADIUS: the RADIUS data plane's routes (/api/v1/radius/...) are there, not on the API.
   */
  serviceUrl: string;
  /** DynamoDB table of the stack (in the run's DynamoDB Local), for seeding directly. */
  table: string;
  radiusAuthPort: number;
  radiusAcctPort: number;
  /** TCP port of FreeRADIUS's RadSec listener. */
  radiusTlsPort: number;
  /** Secret of the demo router `npm start` registers at 127.0.0.1 (bin/local/demo.ts). */
  radiusSecret: string;
  /** Bearer secret FreeRADIUS sends to its service. */
  radiusApiSecret: string;
  /** The stack's SMS outbox (JSON lines). */
  smsOutbox: string;
  /** Files the stack writes when it is up (`ready`) or has failed (`failed`, with its output). */
  readyFile: string;
  failedFile: string;
  /** The stack's console output. */
  logFile: string;
}

/**
 * Waits until the run's edge stack (started in the background by the global setup, so runs
 * without edge tests do not wait for it) is up, and returns where it is. Fails with its output
 * when it could not start, FreeRADIUS missing included: an edge test never passes by testing
 * nothing.
 */
export async function edgeStack(): Promise<EdgeContext> {
  // Imported here: the global setup uses this module's radclient outside any test.
  const { inject } = await import('vitest');
  const context = inject('edge');
  // However long a busy machine takes to start it (the calling hook's timeout guards a hang).
  for (;;) {
    if (existsSync(context.readyFile)) return context;
    if (existsSync(context.failedFile)) {
      throw new Error(`the edge stack did not start:\n${readFileSync(context.failedFile, 'utf8')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A UDP router registered for the tests, at a loopback address of its own. */
export interface TestRouter {
  routerId: string;
  ip: string;
  secret: string;
}

const usedAddresses = new Set<string>();
/** A loopback address no other router of this run has (127.0.0.1 and .2 are `npm start`'s). */
function freshLoopback(): string {
  for (;;) {
    const b = () => Math.floor(Math.random() * 250) + 3;
    const ip = `127.${b()}.${b()}.${b()}`;
    if (!usedAddresses.has(ip)) {
      usedAddresses.add(ip);
      return ip;
    }
  }
}

/**
 * Registers a UDP router for `nasIds` of `resellerId` (through functions/routers, as the API
 * does) at a fresh loopback address, then waits until the run's FreeRADIUS knows it: it adds at
 * most one new client per second, so the router sends Status-Server until one is answered
 * rather than have a test's first packet dropped.
 */
export async function givenUdpRouter(
  edge: EdgeContext,
  resellerId: string,
  nasIds: string[],
): Promise<TestRouter> {
  const { register } = await import('../../functions/routers/routers.js');
  for (let attempt = 0; ; attempt++) {
    const ip = freshLoopback();
    try {
      const { router, credentials } = await register({
        reseller_id: resellerId,
        name: 'Test router',
        nas_ids: nasIds,
        transport: 'udp',
        source_ip: ip,
      });
      const secret = (credentials as { secret: string }).secret;
      await warmUp(edge, ip, secret);
      return { routerId: router.router_id, ip, secret };
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_CONFLICT' && attempt < 5) continue;
      throw error;
    }
  }
}

async function warmUp(edge: EdgeContext, ip: string, secret: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const reply = await radclient(
      'status',
      { 'Message-Authenticator': '0x00', 'Packet-Src-IP-Address': ip },
      { port: edge.radiusAuthPort, secret, timeoutS: 0.4 },
    );
    if (reply.code !== 'timeout') return;
  }
  throw new Error(`FreeRADIUS did not learn the router at ${ip}`);
}

/** radclient as that router: from its address, with its secret (and Message-Authenticator on auth). */
export function asRouter(edge: EdgeContext, router: Pick<TestRouter, 'ip' | 'secret'>) {
  return {
    auth: (attrs: RadiusAttributes, options: { timeoutS?: number } = {}) =>
      radclient(
        'auth',
        { 'Message-Authenticator': '0x00', ...attrs, 'Packet-Src-IP-Address': router.ip },
        { port: edge.radiusAuthPort, secret: router.secret, ...options },
      ),
    acct: (attrs: RadiusAttributes, options: { timeoutS?: number } = {}) =>
      radclient(
        'acct',
        { ...attrs, 'Packet-Src-IP-Address': router.ip },
        { port: edge.radiusAcctPort, secret: router.secret, ...options },
      ),
  };
}
