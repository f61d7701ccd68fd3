import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findBinary, freeRadiusAvailable } from '../../bin/local/freeradius.js';
import { edgeBundle } from '../support/edge.js';

// The edge installs with one command (deploy/edge/install.sh, run from the folder `npm run
// edge:build` makes). Here under a root folder (no apt-get, accounts or systemctl); what it
// installs is then run as its units run it: the FreeRADIUS configuration checked by run.sh -C,
// the service started from its bundle with its environment file. The same installer on a real
// Debian 12 root: test/edge/edge-debian12.test.ts.

const root = mkdtempSync(join(tmpdir(), 'hotspot-edge-root-'));
const token = `edge_${randomUUID()}.${'A'.repeat(43)}`;
let folder = '';

/** The variables of an installed env file. */
const envOf = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

const install = (args: string[], input?: string) =>
  execFileSync('sh', [join(folder, 'install.sh'), '--root', root, ...args], {
    stdio: 'pipe',
    ...(input === undefined ? {} : { input }),
  }).toString();

beforeAll(async () => {
  folder = await edgeBundle();
  // The token on standard input, never on the command line.
  install(
    ['--region', 'http://127.0.0.1:9', '--ntp', 'ntp.example.ci,196.47.0.1', '--edge-port', '8471'],
    `${token}\n`,
  );
}, 120_000);

describe('deploy/edge/install.sh', () => {
  it('is in the folder the build makes, with the bundle for Debian 12 and the configuration beside it', () => {
    for (const f of [
      'install.sh',
      'edge.mjs',
      'hotspot-edge.service',
      'hotspot-edge-radius.service',
      'freeradius/run.sh',
    ])
      expect(existsSync(join(folder, f)), f).toBe(true);
  });

  it('installs the service, the shipped FreeRADIUS configuration and two systemd units, secrets readable by no one else', () => {
    for (const f of [
      'opt/hotspot-edge/edge.mjs',
      'opt/hotspot-edge/freeradius/run.sh',
      'opt/hotspot-edge/freeradius/sites/hotspot',
      'etc/systemd/system/hotspot-edge.service',
      'etc/systemd/system/hotspot-edge-radius.service',
    ])
      expect(existsSync(join(root, f)), f).toBe(true);
    for (const f of [
      'etc/hotspot-edge/edge.env',
      'etc/hotspot-edge/radius.env',
      'etc/hotspot-edge/token',
      'opt/hotspot-edge/freeradius/tls/server.key',
    ])
      expect(statSync(join(root, f)).mode & 0o077, f).toBe(0);
    const edge = envOf(join(root, 'etc/hotspot-edge/edge.env'));
    const radius = envOf(join(root, 'etc/hotspot-edge/radius.env'));
    // The token is in its own file, named by the service's environment; FreeRADIUS's has none of it.
    expect(readFileSync(join(root, 'etc/hotspot-edge/token'), 'utf8')).toBe(`${token}\n`);
    expect(edge.EDGE_TOKEN_FILE).toBe('/etc/hotspot-edge/token');
    expect(JSON.stringify(edge)).not.toContain(token);
    expect(JSON.stringify(radius)).not.toContain(token);
    // FreeRADIUS's bearer is the service's local secret, and its API the service on loopback.
    expect(radius.RADIUS_API_SECRET).toBe(edge.EDGE_LOCAL_SECRET);
    expect(radius.RADIUS_API_URL).toBe('http://127.0.0.1:8471');
    expect(edge.EDGE_PORT).toBe('8471');
  });

  it('runs FreeRADIUS under an account of its own, which the token and the replica are hidden from', () => {
    const unit = readFileSync(join(root, 'etc/systemd/system/hotspot-edge-radius.service'), 'utf8');
    const service = readFileSync(join(root, 'etc/systemd/system/hotspot-edge.service'), 'utf8');
    expect(unit).toMatch(/^User=hotspot-radius$/m);
    expect(service).toMatch(/^User=hotspot-edge$/m);
    expect(unit).toMatch(/^InaccessiblePaths=.*\/etc\/hotspot-edge\/token.*\/var\/lib\/hotspot-edge/m);
  });

  it('points systemd-timesyncd at the in-country time servers it was given', () => {
    expect(readFileSync(join(root, 'etc/systemd/timesyncd.conf.d/hotspot-edge.conf'), 'utf8')).toContain(
      'NTP=ntp.example.ci 196.47.0.1',
    );
  });

  it('refuses the token as an argument, and a token that is not an edge token', () => {
    expect(() => install(['--region', 'https://api.example.com', '--token', token])).toThrow(
      /never an argument/,
    );
    const other = mkdtempSync(join(tmpdir(), 'hotspot-edge-root-'));
    const file = join(other, 'token');
    writeFileSync(file, 'x\n');
    expect(() =>
      execFileSync(
        'sh',
        [join(folder, 'install.sh'), '--root', other, '--region', 'https://a.example', '--token-file', file],
        {
          stdio: 'pipe',
        },
      ),
    ).toThrow(/edge's token/);
  });

  it('keeps the token and the loopback secret when installed again without them', () => {
    const before = envOf(join(root, 'etc/hotspot-edge/edge.env'));
    install(['--region', 'http://127.0.0.1:9', '--edge-port', '8471'], '');
    expect(readFileSync(join(root, 'etc/hotspot-edge/token'), 'utf8')).toBe(`${token}\n`);
    expect(envOf(join(root, 'etc/hotspot-edge/edge.env')).EDGE_LOCAL_SECRET).toBe(before.EDGE_LOCAL_SECRET);
  });

  it('leaves a FreeRADIUS configuration that run.sh accepts and FreeRADIUS checks', () => {
    if (!freeRadiusAvailable() || !findBinary('freeradius')) throw new Error('freeradius is not installed');
    const radius = envOf(join(root, 'etc/hotspot-edge/radius.env'));
    // Exits 0 (execFileSync throws otherwise) once FreeRADIUS has read every file it was given.
    execFileSync('sh', [join(root, 'opt/hotspot-edge/freeradius/run.sh'), '-C'], {
      env: {
        PATH: process.env.PATH,
        ...radius,
        RADIUS_TLS_DIR: join(root, 'opt/hotspot-edge/freeradius/tls'),
        RADIUS_AUTH_PORT: '21812',
        RADIUS_ACCT_PORT: '21813',
        RADIUS_TLS_PORT: '22083',
      },
      stdio: 'pipe',
    });
  });

  it('starts the installed service from its bundle with the installed environment, its token read from the file', async () => {
    const edge = envOf(join(root, 'etc/hotspot-edge/edge.env'));
    const child = spawn(process.execPath, [join(root, 'opt/hotspot-edge/edge.mjs')], {
      env: {
        PATH: process.env.PATH,
        ...edge,
        EDGE_TOKEN_FILE: join(root, 'etc/hotspot-edge/token'),
        EDGE_DATA_DIR: join(root, 'var/lib/hotspot-edge'),
        EDGE_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((done, fail) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('edge listening')) done(out);
        });
        child.once('exit', (code) => fail(new Error(`edge exited ${code}: ${out}`)));
      });
      const url = /listening on (\S+);/.exec(line)?.[1] as string;
      // Its FreeRADIUS's bearer only: anything else is refused as the region refuses it.
      const res = await fetch(`${url}/api/v1/radius/client`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(502);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
