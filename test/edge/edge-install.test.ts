import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findBinary, freeRadiusAvailable } from '../../bin/local/freeradius.js';

// Issue 34, item 1: the edge installs with one command (deploy/edge/install.sh). Here under a
// root folder (no apt-get, useradd or systemctl); what it installs is then run as systemd would
// run it: the FreeRADIUS configuration checked by run.sh -C, the service started from its bundle.

const root = mkdtempSync(join(tmpdir(), 'hotspot-edge-root-'));
const token = `edge_${randomUUID()}.${'A'.repeat(43)}`;

/** The variables of an installed env file. */
const envOf = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

beforeAll(() => {
  execFileSync('npm', ['run', '--silent', 'edge:build'], { stdio: 'ignore' });
  execFileSync(
    'sh',
    ['deploy/edge/install.sh', '--root', root, '--region', 'http://127.0.0.1:9', '--token', token],
    {
      stdio: 'pipe',
    },
  );
}, 60_000);

describe('deploy/edge/install.sh', () => {
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
      'opt/hotspot-edge/freeradius/tls/server.key',
    ])
      expect(statSync(join(root, f)).mode & 0o077, f).toBe(0);
    const edge = envOf(join(root, 'etc/hotspot-edge/edge.env'));
    const radius = envOf(join(root, 'etc/hotspot-edge/radius.env'));
    expect(edge.EDGE_TOKEN).toBe(token);
    // FreeRADIUS's bearer is the service's local secret, and its API the service on loopback.
    expect(radius.RADIUS_API_SECRET).toBe(edge.EDGE_LOCAL_SECRET);
    expect(radius.RADIUS_API_URL).toBe(`http://127.0.0.1:${edge.EDGE_PORT}`);
  });

  it('refuses a token that is not an edge token', () => {
    expect(() =>
      execFileSync(
        'sh',
        ['deploy/edge/install.sh', '--root', root, '--region', 'https://api.example.com', '--token', 'x'],
        {
          stdio: 'pipe',
        },
      ),
    ).toThrow(/edge's token/);
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

  it('starts the installed service from its bundle with the installed environment', async () => {
    const edge = envOf(join(root, 'etc/hotspot-edge/edge.env'));
    const child = spawn(process.execPath, [join(root, 'opt/hotspot-edge/edge.mjs')], {
      env: {
        PATH: process.env.PATH,
        ...edge,
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
