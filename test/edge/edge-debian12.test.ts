import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/freeradius.js';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { register } from '../../functions/routers/routers.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { type DebianRoot, debianRoot, envFile, unitOf } from '../support/debian-root.js';
import { edgeBundle, type LinkProxy, linkProxy } from '../support/edge.js';
import { useLocalServer } from '../support/http.js';
import { radclient } from '../support/radius.js';

// Issue 42, item 8: the edge on a clean Debian 12 with what Debian ships. A root made by
// mmdebstrap (test/support/debian-root.ts); the folder `npm run edge:build` makes copied into it
// and its install.sh run there as root, the token on standard input; then each unit's ExecStart
// started as systemd starts it (its User and Group, exactly its EnvironmentFile), which systemd
// cannot do in a chroot: Debian's Node 18 runs the service, Debian's FreeRADIUS 3.2.1 the shipped
// configuration. A router (radclient) logs in and reports through it to the region (the real
// local API, behind a proxy that can cut the link), then logs in during a cut.

const server = useLocalServer();
let link: LinkProxy;
let root: DebianRoot;
const units: ChildProcess[] = [];
const resellerId = randomUUID();
const nasId = `access_deb_${randomUUID().slice(0, 8)}`;
const routerIp = '127.31.4.12';
let routerSecret = '';
let token = '';
const ports = { auth: 0, acct: 0, tls: 0, edge: 0 };
let stock: AccessCode;

beforeAll(async () => {
  link = await linkProxy(server.url());
  await recordReseller({ resellerId, name: 'Boutique Fanta', country: 'CI' });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Boutique Fanta',
    vlan_id: 14,
    kind: 'vlan',
  });
  const { credentials } = await register({
    reseller_id: resellerId,
    name: 'Routeur de la boutique',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: routerIp,
  });
  routerSecret = (credentials as { secret: string }).secret;
  token = (
    await registerEdge({
      name: 'Korhogo',
      reseller_ids: [resellerId],
      addresses: ['192.0.2.50'],
      nowIso: clock.iso(),
    })
  ).token;
  stock = {
    ...paidCode(resellerId, { duration_hours: 3 }),
    source: 'voucher',
    voucher_status: 'active',
    currency: 'XOF',
  };
  await Access.put(stock);
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();

  const folder = await edgeBundle();
  root = await debianRoot();
  root.host(['cp', '-R', folder, join(root.merged, 'tmp/hotspot-edge')]);
  const region = link.url;
  root.run(
    [
      'sh',
      '/tmp/hotspot-edge/install.sh',
      '--region',
      region,
      '--ntp',
      'ntp.example.ci',
      '--auth-port',
      String(ports.auth),
      '--acct-port',
      String(ports.acct),
      '--tls-port',
      String(ports.tls),
      '--edge-port',
      String(ports.edge),
    ],
    `${token}\n`,
  );
}, 900_000);

afterAll(async () => {
  await root?.close();
  await link?.close();
});

/** Starts an installed unit's ExecStart as systemd would, and waits for `ready` in its output. */
async function startUnit(name: string, ready: RegExp): Promise<string> {
  const unit = unitOf(root.run(['cat', `/etc/systemd/system/${name}`]));
  const env = envFile(root.run(['cat', unit.EnvironmentFile as string]));
  const child = root.spawnAs(
    unit.User as string,
    unit.Group as string,
    { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...env },
    (unit.ExecStart as string).split(' '),
  );
  units.push(child);
  return new Promise<string>((done, fail) => {
    let out = '';
    const take = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) done(out);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('exit', (code) => fail(new Error(`${name} exited (${code}):\n${out}`)));
  });
}

const asRouter = {
  auth: (attrs: Record<string, string>) =>
    radclient(
      'auth',
      {
        'Message-Authenticator': '0x00',
        'NAS-Identifier': nasId,
        ...attrs,
        'Packet-Src-IP-Address': routerIp,
      },
      { port: ports.auth, secret: routerSecret, timeoutS: 12 },
    ),
  acct: (attrs: Record<string, string | number>) =>
    radclient(
      'acct',
      { 'NAS-Identifier': nasId, ...attrs, 'Packet-Src-IP-Address': routerIp },
      { port: ports.acct, secret: routerSecret, timeoutS: 12 },
    ),
};

describe('the edge on a clean Debian 12 (mmdebstrap), installed with one command', () => {
  it("runs on Debian's own Node and FreeRADIUS, under two accounts, the token out of FreeRADIUS's reach, the clock kept by timesyncd", () => {
    expect(root.run(['node', '--version'])).toMatch(/^v18\./);
    expect(root.run(['freeradius', '-v'])).toMatch(/Version 3\.2\.1/);
    expect(root.run(['stat', '-c', '%U:%G %a', '/etc/hotspot-edge/token']).trim()).toBe(
      'root:hotspot-edge 640',
    );
    expect(root.run(['stat', '-c', '%U:%G %a', '/etc/hotspot-edge/radius.env']).trim()).toBe(
      'root:hotspot-radius 640',
    );
    expect(root.run(['stat', '-c', '%U %a', '/var/lib/hotspot-edge']).trim()).toBe('hotspot-edge 700');
    expect(root.run(['id', '-nG', 'hotspot-radius']).trim()).toBe('hotspot-radius');
    // FreeRADIUS's account cannot read the token (nor the edge's environment, nor its replica).
    const asRadius = ['setpriv', '--reuid=hotspot-radius', '--regid=hotspot-radius', '--init-groups'];
    for (const file of ['/etc/hotspot-edge/token', '/etc/hotspot-edge/edge.env'])
      expect(() => root.run([...asRadius, 'cat', file]), file).toThrow(/Permission denied/);
    expect(() => root.run([...asRadius, 'ls', '/var/lib/hotspot-edge'])).toThrow(/Permission denied/);
    // The service's account reads its token.
    expect(
      root.run([
        'setpriv',
        '--reuid=hotspot-edge',
        '--regid=hotspot-edge',
        '--init-groups',
        'cat',
        '/etc/hotspot-edge/token',
      ]),
    ).toBe(`${token}\n`);
    expect(root.run(['cat', '/etc/systemd/timesyncd.conf.d/hotspot-edge.conf'])).toContain(
      'NTP=ntp.example.ci',
    );
    // Throws unless the unit is enabled (its link there).
    for (const link of [
      '/etc/systemd/system/sysinit.target.wants/systemd-timesyncd.service',
      '/etc/systemd/system/multi-user.target.wants/hotspot-edge.service',
      '/etc/systemd/system/multi-user.target.wants/hotspot-edge-radius.service',
    ])
      root.run(['test', '-L', link]);
  });

  it('answers a router through the region, then decides itself during a cut, Message-Authenticator in every reply', async () => {
    await startUnit('hotspot-edge.service', /replica: 1 routers/);
    await startUnit('hotspot-edge-radius.service', /Ready to process requests/);
    // Link up: forwarded to the region, which records the login.
    const paid = paidCode(resellerId);
    await Access.put(paid);
    const login = await asRouter.auth({
      'User-Name': paid.code,
      'User-Password': paid.code,
      'Calling-Station-Id': '02:00:00:00:50:01',
    });
    expect(login.code).toBe('Access-Accept');
    expect(login.attributes['Message-Authenticator']).toBeDefined();
    const report = await asRouter.acct({
      'Acct-Status-Type': 'Start',
      'User-Name': paid.code,
      'Acct-Session-Id': 'D-1',
      'Calling-Station-Id': '02:00:00:00:50:01',
    });
    expect(report.code).toBe('Accounting-Response');
    expect(Object.keys((await getAccessCode(paid.code))?.devices ?? {})).toHaveLength(1);
    // The cut: a voucher in stock logs in, decided by the edge from its replica on Node 18.
    link.setCut(true);
    const during = await asRouter.auth({
      'User-Name': stock.code,
      'User-Password': stock.code,
      'Calling-Station-Id': '02:00:00:00:50:02',
    });
    expect(during.code).toBe('Access-Accept');
    expect(during.attributes['Message-Authenticator']).toBeDefined();
    expect(Number(during.attributes['Session-Timeout']?.[0])).toBeLessThanOrEqual(3 * 3600);
  }, 120_000);
});
