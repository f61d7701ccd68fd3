import { describe, expect, it } from 'vitest';
import { loginHtml, paymentHosts, routerOsScript } from '../../bin/admin/mikrotik.js';
import { caCertificatePem, issueRouterCertificate } from '../../functions/routers/ca.mjs';

const SEED = 'unit-test-router-key-seed-0123456789abcdef';
const cert = await issueRouterCertificate(SEED, 'rtr_chezawa0001', Date.now());
const radsec = {
  transport: 'radsec' as const,
  routerId: 'rtr_chezawa0001',
  certificatePem: cert.certPem,
  privateKeyPem: cert.keyPem,
  caPem: await caCertificatePem(SEED),
};
const udp = { transport: 'udp' as const, routerId: 'rtr_chezawa0002', secret: 'a-router-own-secret-123' };

const options = {
  nasId: 'access_chez_awa',
  routerOs: 7 as const,
  radiusHost: '203.0.113.10',
  access: radsec,
  portalUrl: 'https://api.hotspot.example/',
  paymentHosts: paymentHosts('cinetpay'),
  dnsName: 'login.wifi',
  macAuthPassword: 'hotspot-mac',
};

describe('the RouterOS 7 script of a router (RadSec)', () => {
  const script = routerOsScript(options);

  it('names the router by its NAS id, which it sends as NAS-Identifier', () => {
    expect(script).toContain('/system identity set name="access_chez_awa"');
  });

  it("imports the router's own certificate, key and the platform CA, and speaks RadSec with them", () => {
    expect(script).toContain(
      `/file add name="rtr_chezawa0001-cert.crt" contents="${cert.certPem.trim().split('\n').join('\\n')}\\n"`,
    );
    expect(script).toContain(
      '/certificate import file-name="rtr_chezawa0001-key.pem" passphrase="" name="rtr_chezawa0001"',
    );
    expect(script).toContain('/certificate import file-name="rtr_chezawa0001-ca.crt"');
    expect(script).toContain(
      '/radius add service=hotspot address="203.0.113.10" protocol=radsec certificate="rtr_chezawa0001" secret="radsec" timeout=3s',
    );
    expect(script).toContain('/radius incoming set accept=yes');
    // Every line is one RouterOS command: the PEMs are escaped into their line.
    expect(script.split('\n').filter((l) => l.startsWith('MI'))).toEqual([]);
  });

  it('writes no shared secret: the certificate is the credential', () => {
    expect(script).not.toMatch(/secret="(?!radsec")/);
  });

  it('makes the default hotspot profile use RADIUS, CHAP, PAP and MAC logins (with the MAC-auth password) and 5-minute interim updates', () => {
    expect(script).toContain(
      '/ip hotspot profile set [find default=yes] use-radius=yes radius-interim-update=5m login-by=http-chap,http-pap,mac mac-auth-mode=mac-as-username mac-auth-password="hotspot-mac" dns-name="login.wifi"',
    );
  });

  it("lets the portal and the configured gateway's payment pages through the walled garden, and no other gateway's", () => {
    for (const host of ['api.hotspot.example', '*.cinetpay.com']) {
      expect(script).toContain(`/ip hotspot walled-garden add dst-host="${host}"`);
    }
    expect(script).not.toContain('fedapay');
    expect(script).toContain('/ip hotspot walled-garden ip add action=accept dst-host="api.hotspot.example"');
  });

  it("L2: announces the hotspot's RFC 8908 captive API (not the HTML portal) in DHCP option 114 (RFC 8910)", () => {
    expect(script).toContain(
      `/ip dhcp-server option add name="captive-portal" code=114 value="'https://api.hotspot.example/api/v1/captive/access_chez_awa'"`,
    );
    expect(script).not.toContain('code=114 value="\'https://api.hotspot.example/portal/');
    expect(script).toContain('/ip dhcp-server network set [find] dhcp-option=captive-portal');
  });

  it('says how to upload login.html', () => {
    expect(script).toContain('hotspot/login.html');
  });
});

describe('the RouterOS 6 script of a router (UDP, its own secret)', () => {
  const script = routerOsScript({ ...options, routerOs: 6, access: udp });

  it("points the hotspot at the RADIUS front with the router's own secret", () => {
    expect(script).toContain(
      '/radius add service=hotspot address="203.0.113.10" secret="a-router-own-secret-123" authentication-port=1812 accounting-port=1813 timeout=3s',
    );
    expect(script).not.toContain('radsec');
    expect(script).toContain('code=114');
  });

  it('refuses RadSec, which RouterOS 6 does not have', () => {
    expect(() => routerOsScript({ ...options, routerOs: 6 })).toThrow('RouterOS 6');
  });
});

describe('values written into the script', () => {
  it('stay one quoted value whatever they hold', () => {
    // A router's own secret may hold any printable character but a space.
    const script = routerOsScript({ ...options, access: { ...udp, secret: 'a"b\\c$d?e-secret' } });
    expect(script).toContain('secret="a\\"b\\\\c\\$d\\?e-secret"');
  });

  it.each([
    [{ nasId: 'access_x" ; /system reset-configuration' }, 'nas-id'],
    [{ nasId: 'access_x\n/system reset-configuration' }, 'nas-id'],
    [{ radiusHost: 'radius.example.com' }, 'radius-host'],
    [{ access: { ...udp, secret: 'short' } }, 'secret'],
    [{ access: { ...udp, secret: 'with a space inside' } }, 'secret'],
    [{ access: { ...radsec, certificatePem: 'x" ; /system reset-configuration' } }, 'PEM'],
    [{ portalUrl: 'not a url' }, 'portal-url'],
    [{ dnsName: 'x" ; /system reset-configuration' }, 'dns-name'],
    [{ paymentHosts: ['x" ; /system reset'] }, 'host name'],
    [{ macAuthPassword: 'x" ; /system reset' }, 'RADIUS_MAC_AUTH_PASSWORD'],
  ])('are refused when they could not be a value: %j', (bad, flag) => {
    expect(() => routerOsScript({ ...options, ...bad } as never)).toThrow(flag);
  });

  it('escape a secret that holds RouterOS syntax', () => {
    const script = routerOsScript({
      ...options,
      routerOs: 6,
      access: { ...udp, secret: 'x"$(:put-1)?\\secret' },
    });
    expect(script).toContain('secret="x\\"\\$(:put-1)\\?\\\\secret"');
  });
});

describe('the MikroTik login page', () => {
  const html = loginHtml('https://api.hotspot.example/');

  it('sends every router variable to the portal of this router’s identity', () => {
    expect(html).toContain('action="https://api.hotspot.example/portal/$(identity)" method="get"');
    for (const v of ['link-login-only', 'link-orig', 'mac', 'chap-id', 'chap-challenge', 'error']) {
      expect(html).toContain(`name="${v}" value="$(${v})"`);
    }
    expect(html).toContain('$(if chap-id)');
    expect(html).not.toContain('PORTAL_URL');
  });
});

describe("the script with the stack's addresses (both of the front's, and where Disconnects leave from)", () => {
  const front = { radiusHost: '203.0.113.10,203.0.113.20', disconnectFrom: '198.51.100.7, 198.51.100.8' };
  const radiusLines = (script: string) => script.split('\n').filter((l) => l.startsWith('/radius add'));

  it('gives a UDP router both front addresses first, then the Disconnect sources, all with its own secret', () => {
    // Act
    const script = routerOsScript({ ...options, ...front, routerOs: 6, access: udp });

    // Assess
    expect(radiusLines(script).map((l) => /address="([^"]+)"/.exec(l)?.[1])).toEqual([
      '203.0.113.10',
      '203.0.113.20',
      '198.51.100.7',
      '198.51.100.8',
    ]);
    for (const line of radiusLines(script)) expect(line).toContain('secret="a-router-own-secret-123"');
    expect(script).toContain('/radius incoming set accept=yes port=3799');
  });

  it('gives a RadSec router both front addresses over TLS (its Disconnects would ride its own connection)', () => {
    // Act
    const script = routerOsScript({ ...options, ...front });

    // Assess
    expect(radiusLines(script).map((l) => /address="([^"]+)"/.exec(l)?.[1])).toEqual([
      '203.0.113.10',
      '203.0.113.20',
    ]);
    for (const line of radiusLines(script)) expect(line).toContain('protocol=radsec');
  });

  it("lists the reseller's in-country edge first, then the front, then the Disconnect sources (UDP)", () => {
    // Act
    const script = routerOsScript({ ...options, ...front, edgeHost: '41.202.1.9', routerOs: 6, access: udp });

    // Assess
    // A cut adds no wait: the edge answers, deciding itself; the front only if the edge's box is down.
    expect(radiusLines(script).map((l) => /address="([^"]+)"/.exec(l)?.[1])).toEqual([
      '41.202.1.9',
      '203.0.113.10',
      '203.0.113.20',
      '198.51.100.7',
      '198.51.100.8',
    ]);
    expect(() => routerOsScript({ ...options, edgeHost: 'edge.example.com', access: udp })).toThrow(
      /edge-host/,
    );
  });

  it('lists the edge first for a RadSec router too when it holds a certificate of the router CA', () => {
    // Act
    const script = routerOsScript({ ...options, ...front, radsecEdgeHost: '41.202.1.9' });

    // Assess
    expect(radiusLines(script).map((l) => /address="([^"]+)"/.exec(l)?.[1])).toEqual([
      '41.202.1.9',
      '203.0.113.10',
      '203.0.113.20',
    ]);
    for (const line of radiusLines(script)) expect(line).toContain('protocol=radsec');
    // A UDP edge is no RadSec server: a RadSec router does not list it.
    expect(radiusLines(routerOsScript({ ...options, ...front, edgeHost: '41.202.1.9' }))).toHaveLength(2);
  });

  it('refuses an address list holding a name', () => {
    expect(() => routerOsScript({ ...options, radiusHost: '203.0.113.10,radius.example.com' })).toThrow(
      /radius-host/,
    );
    expect(() => routerOsScript({ ...options, ...front, disconnectFrom: 'nat.example.com' })).toThrow(
      /disconnect-from/,
    );
  });
});

describe("the setup script's login page (issue 33: no command line step left)", () => {
  it('is deploy/mikrotik/login.html with the portal filled in, and written by the RouterOS 7 script', async () => {
    const { readFileSync } = await import('node:fs');
    const { hotspotLoginPage } = await import('../../functions/routers/routeros-script.mjs');
    const file = readFileSync(new URL('../../deploy/mikrotik/login.html', import.meta.url), 'utf8')
      .replace(/<!--[\s\S]*?-->\n/, '')
      .replaceAll('PORTAL_URL', 'https://api.example.com');
    expect(hotspotLoginPage('https://api.example.com/')).toBe(file);
    const script = routerOsScript(options);
    expect(script).toContain(
      '/file add name="hotspot/login.html" contents="<!doctype html>\\n<html lang=\\"fr\\">',
    );
    expect(script).not.toContain('npm run');
  });
});
