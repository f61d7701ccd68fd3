import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb-local.js';
import { startServer } from '../../bin/local/server.js';
import { startDev, until } from '../support/dev-server.js';

/** Local mode must not be reachable from the network, nor print codes, unless told to. */

/** An IPv4 address of this machine on a real network interface, if it has one. */
const lanAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });

describe('local mode exposure', () => {
  it('someone on the network cannot reach the local server (and its sandbox) unless HOST opens it', async () => {
    const server = await startServer({ port: 0 });
    try {
      const { address, port } = server.server.address() as { address: string; port: number };
      expect(address).toBe('127.0.0.1');
      const lan = lanAddress();
      if (lan) expect(await reachable(lan, port)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('a code sent in local mode is not printed to the console, only who it went to and where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-exposure-'));
    const outbox = join(dir, 'sms-outbox.jsonl');
    const port = await freePort();
    const dev = startDev({
      LOG_LEVEL: 'WARN',
      PORT: String(port),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT as string,
      TABLE_NAME: `dev-${randomUUID()}`,
      LOCAL_DIR: dir,
      SMS_OUTBOX: outbox,
    });
    try {
      await until(() => dev.output().includes('Ctrl-C stops'));
      expect(dev.output()).toContain('Listening on 127.0.0.1 only');
      const lan = lanAddress();
      if (lan) expect(await reachable(lan, port)).toBe(false);

      const msisdn = '+2250700112233';
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/otp/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ msisdn }),
      });
      expect(res.status).toBe(200);
      await until(() => dev.output().includes('SMS to '));
      expect(dev.output()).toContain(`2233 written to ${outbox}`);
      expect(dev.output()).toMatch(/SMS to \+225\*+2233 written to /);
      const code = /\b(\d{6})\b/.exec(readFileSync(outbox, 'utf8'))?.[1] as string;
      expect(code).toMatch(/^\d{6}$/);
      expect(dev.output()).not.toContain(code);
      expect(dev.output()).not.toContain(msisdn);
    } finally {
      await stop(dev.child);
    }
  }, 90_000);

  it('says plainly when HOST opens the local server to the network', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-exposure-'));
    const dev = startDev({
      LOG_LEVEL: 'WARN',
      HOST: '0.0.0.0',
      PORT: String(await freePort()),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT as string,
      TABLE_NAME: `dev-${randomUUID()}`,
      LOCAL_DIR: dir,
      SMS_OUTBOX: join(dir, 'sms-outbox.jsonl'),
    });
    try {
      await until(() => dev.output().includes('Ctrl-C stops'));
      expect(dev.output()).toContain('WARNING: listening on 0.0.0.0');
      expect(dev.output()).toContain('complete any payment');
    } finally {
      await stop(dev.child);
    }
  }, 90_000);
});
