import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalProcess, supervise } from '../../bin/local/child.js';
import { findBinary, freeUdpPort } from '../../bin/local/freeradius.js';
import { radsecproxyConf } from '../../bin/local/radsecproxy.js';

/**
 * Debian's radsecproxy as a RadSec router: radclient's UDP on a loopback port, forwarded over
 * TLS with the router's client certificate to FreeRADIUS's RadSec listener (as RouterOS 7
 * does with `protocol=radsec`).
 */
export interface Radsecproxy extends LocalProcess {
  /** Where radclient sends (127.0.0.1), with `secret`. */
  port: number;
  secret: string;
}

export const RADSECPROXY_INSTALL_HINT = 'radsecproxy is not installed: sudo apt-get install -y radsecproxy';

export async function startRadsecproxy(options: {
  certPem: string;
  keyPem: string;
  caPem: string;
  serverPort: number;
}): Promise<Radsecproxy> {
  const bin = findBinary('radsecproxy');
  if (!bin) throw new Error(RADSECPROXY_INSTALL_HINT);
  const dir = mkdtempSync(join(tmpdir(), 'radsecproxy-'));
  const file = (name: string, body: string) => {
    writeFileSync(join(dir, name), body, { mode: 0o600 });
    return join(dir, name);
  };
  const port = await freeUdpPort();
  const secret = 'radsecproxy-test-secret';
  const conf = file(
    'radsecproxy.conf',
    radsecproxyConf({
      listenPort: port,
      secret,
      ca: file('ca.pem', options.caPem),
      cert: file('router.pem', options.certPem),
      key: file('router.key', options.keyPem),
      serverPort: options.serverPort,
    }),
  );
  const child: ChildProcess = spawn(bin, ['-f', '-d', '3', '-c', conf], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, stop } = supervise(child, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  // Ready once it listens for UDP (it opens the TLS connection at the first request); however
  // long a busy machine takes, unless it exits first.
  while (!/listening for udp/.test(output())) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`radsecproxy did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { port, secret, pid: child.pid as number, output, stop };
}

/** A router's RadSec credentials as the API issues them (POST /routers, a renewal). */
export interface IssuedRadsec {
  certificate_pem: string;
  private_key_pem: string;
  ca_pem: string;
}

/** radsecproxy as the router these credentials were issued to, towards FreeRADIUS's RadSec port. */
export function startRadsecRouter(c: IssuedRadsec, serverPort: number): Promise<Radsecproxy> {
  return startRadsecproxy({
    certPem: c.certificate_pem,
    keyPem: c.private_key_pem,
    caPem: c.ca_pem,
    serverPort,
  });
}
