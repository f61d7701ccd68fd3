import { describe, expect, it } from 'vitest';
import { loginHtml, PAYMENT_PAGE_HOSTS, ros, routerOsScript } from '../../bin/admin/mikrotik.js';

const options = {
  nasId: 'access_chez_awa',
  radiusHost: '203.0.113.10',
  secret: 'a-shared-secret-123',
  portalUrl: 'https://api.hotspot.example/',
  dnsName: 'login.wifi',
};

describe('the RouterOS script of a NAS', () => {
  const script = routerOsScript(options);

  it('names the router by its NAS id, which it sends as NAS-Identifier', () => {
    expect(script).toContain('/system identity set name="access_chez_awa"');
  });

  it('points the hotspot at the platform’s RADIUS server with the shared secret', () => {
    expect(script).toContain(
      '/radius add service=hotspot address="203.0.113.10" secret="a-shared-secret-123" authentication-port=1812 accounting-port=1813',
    );
    expect(script).toContain('/radius incoming set accept=yes');
  });

  it('makes the default hotspot profile use RADIUS, CHAP and PAP logins and 5-minute interim updates', () => {
    expect(script).toContain(
      '/ip hotspot profile set [find default=yes] use-radius=yes radius-interim-update=5m login-by=http-chap,http-pap dns-name="login.wifi"',
    );
  });

  it('lets the portal and every payment page through the walled garden', () => {
    for (const host of ['api.hotspot.example', ...PAYMENT_PAGE_HOSTS]) {
      expect(script).toContain(`/ip hotspot walled-garden add dst-host="${host}"`);
    }
    expect(script).toContain('/ip hotspot walled-garden ip add action=accept dst-host="api.hotspot.example"');
  });

  it('says how to upload login.html', () => {
    expect(script).toContain('hotspot/login.html');
  });
});

describe('values written into the script', () => {
  it('stay one quoted value whatever they hold', () => {
    expect(ros('a"b\\c$d?e')).toBe('"a\\"b\\\\c\\$d\\?e"');
  });

  it.each([
    [{ nasId: 'access_x" ; /system reset-configuration' }, 'nas-id'],
    [{ nasId: 'access_x\n/system reset-configuration' }, 'nas-id'],
    [{ radiusHost: 'radius.example.com' }, 'radius-host'],
    [{ secret: 'short' }, 'secret'],
    [{ secret: 'with a space inside' }, 'secret'],
    [{ portalUrl: 'not a url' }, 'portal-url'],
    [{ dnsName: 'x" ; /system reset-configuration' }, 'dns-name'],
  ])('are refused when they could not be a value: %j', (bad, flag) => {
    expect(() => routerOsScript({ ...options, ...bad })).toThrow(flag);
  });

  it('escape a secret that holds RouterOS syntax', () => {
    const script = routerOsScript({ ...options, secret: 'x"$(:put-1)?\\secret' });
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
