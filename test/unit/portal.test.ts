import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleAssetsModule } from '../../bin/console-assets.js';
import { portalAssetsModule } from '../../bin/portal-assets.js';
import { md5Hex } from '../../functions/portal/md5.js';
import { renderPortal } from '../../functions/portal/page.js';
import {
  loginOrigin,
  nasLogin,
  routerErrorKey,
  routerParams,
  trustedRouter,
} from '../../functions/portal/router-login.js';
import {
  dataText,
  durationText,
  pickLang,
  priceText,
  remainingText,
} from '../../functions/portal/strings.js';

const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest('hex');
const octal = (bytes: Buffer) => [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

describe('the portal’s MD5', () => {
  it('agrees with node:crypto on every length around the block boundaries', () => {
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 1000]) {
      const bytes = randomBytes(n);
      expect(md5Hex(bytes), `length ${n}`).toBe(md5(bytes));
    }
  });

  it('gives RFC 1321’s test vector', () => {
    expect(md5Hex(new TextEncoder().encode('abc'))).toBe('900150983cd24fb0d6963f7d28e17f72');
  });
});

describe('logging in at the router', () => {
  /** The password the page posts to a MikroTik that sent this CHAP id and challenge. */
  const mikrotikPassword = (chapId: string, code: string, chapChallenge: string) => {
    const params = routerParams(
      new URLSearchParams({
        'link-login-only': 'http://10.5.50.1/login',
        'chap-id': chapId,
        'chap-challenge': chapChallenge,
      }),
    );
    const login = params && nasLogin(params, code);
    return login && 'fields' in login ? login.fields.password : undefined;
  };

  it('decodes MikroTik’s octal escapes into bytes', () => {
    expect(mikrotikPassword('\\357\\001A\\0', 'C', 'B')).toBe(
      md5(Buffer.from([0o357, 1, 65, 0]), Buffer.from('C'), Buffer.from('B')),
    );
  });

  it('computes MikroTik’s CHAP password as hexMD5(chap-id + code + chap-challenge)', () => {
    const id = randomBytes(1);
    const challenge = randomBytes(16);
    expect(mikrotikPassword(octal(id), 'ABCDEFGHJK', octal(challenge))).toBe(
      md5(id, Buffer.from('ABCDEFGHJK'), challenge),
    );
  });

  it('posts username, CHAP password, dst and popup to link-login-only', () => {
    const params = routerParams(
      new URLSearchParams({
        'link-login-only': 'http://10.5.50.1/login',
        'link-orig': 'http://example.com/',
        'chap-id': '\\001',
        'chap-challenge': '\\002\\003',
      }),
    );
    expect(params && nasLogin(params, 'CODE234567')).toEqual({
      method: 'post',
      action: 'http://10.5.50.1/login',
      fields: {
        username: 'CODE234567',
        password: md5(Buffer.from([1]), Buffer.from('CODE234567'), Buffer.from([2, 3])),
        dst: 'http://example.com/',
        popup: 'true',
      },
    });
  });

  it('posts the code itself as the password without CHAP (PAP)', () => {
    const params = routerParams(new URLSearchParams({ 'link-login-only': 'https://login.wifi/login' }));
    expect(params && nasLogin(params, 'CODE234567')).toMatchObject({
      fields: { username: 'CODE234567', password: 'CODE234567', dst: '', popup: 'true' },
    });
  });

  it('opens CoovaChilli’s logon with the CHAP response MD5(0 + code + challenge)', () => {
    const challenge = randomBytes(16).toString('hex');
    const params = routerParams(
      new URLSearchParams({
        uamip: '10.1.0.1',
        uamport: '3990',
        challenge,
        userurl: 'http://a.example/',
        res: 'notyet',
      }),
    );
    expect(loginOrigin(params)).toBe('http://10.1.0.1:3990');
    const login = params && nasLogin(params, 'CODE234567');
    const url = new URL((login as { url: string }).url);
    expect(url.origin + url.pathname).toBe('http://10.1.0.1:3990/logon');
    expect(url.searchParams.get('response')).toBe(
      md5(Buffer.from([0]), Buffer.from('CODE234567'), Buffer.from(challenge, 'hex')),
    );
    expect(url.searchParams.get('userurl')).toBe('http://a.example/');
  });

  it.each([
    ['link-login-only', 'javascript:alert(1)'],
    ['link-login-only', 'http://user:pw@10.5.50.1/login'],
    ['uamip', '10.1.0.1:80'],
  ])('ignores a router parameter %s=%s that is not a plain web address', (name, value) => {
    expect(routerParams(new URLSearchParams({ [name]: value, uamport: '3990' }))).toBeUndefined();
  });
});

describe('the portal page', () => {
  const input = {
    nasId: 'access_chez_awa',
    resellerName: 'Chez <Awa> & "Fils"',
    logoUrl: 'https://cdn.example.com/logo.png',
    primaryColor: '#ffcc00',
    secondaryColor: '#ffffff',
    customCss: '.brand { color: #222 }',
    lang: 'fr' as const,
    query: new URLSearchParams({ 'link-login-only': 'http://10.5.50.1:8080/login' }),
    loginOrigin: 'http://10.5.50.1:8080',
  };

  it('allows no form-action but its own when the login URL is not on the registered origin', () => {
    for (const registered of ['http://10.5.50.1', 'https://10.5.50.1:8080', 'http://login.wifi']) {
      const { html, csp } = renderPortal({ ...input, loginOrigin: registered });
      expect(csp).toContain("form-action 'self';");
      expect(html).toContain(`data-login-origin="${registered}"`);
    }
  });

  it.each([
    ['invalid username or password', 'err_router_credentials'],
    ['user AB12 has reached uptime limit', 'err_expired'],
    ['user AB12 has reached traffic limit', 'err_data_used'],
    ['no more sessions are allowed for user AB12', 'err_device_limit'],
    ["Nombre maximal d'appareils atteint", 'err_device_limit'],
    ['Code inconnu', 'err_unknown_code'],
    ['Code non valable sur ce hotspot', 'err_wrong_hotspot'],
    ['Forfait expiré', 'err_expired'],
    ['Volume de données épuisé', 'err_data_used'],
    ['Appareil non reconnu, saisissez votre code', 'err_mac_unknown'],
    ['RADIUS server is not responding', 'err_router_unavailable'],
    ['already authorizing, retry later', 'err_router_retry'],
    ['<img src=x> call +225 0102030405', 'err_router_generic'],
  ])('maps the router error %j to a fixed sentence (%s)', (raw, key) => {
    expect(routerErrorKey(raw)).toBe(key);
  });

  it('trusts router parameters on the registered origin only', () => {
    const params = routerParams(new URLSearchParams({ 'link-login-only': 'http://login.wifi/login' }));
    expect(trustedRouter(params, 'http://login.wifi')).toBe(params);
    expect(trustedRouter(params, 'http://login.wifi:8080')).toBeUndefined();
    expect(trustedRouter(params, undefined)).toBeUndefined();
  });

  it('allows posting to the router’s login origin and the branding style by its hash', () => {
    const { html, csp } = renderPortal(input);
    expect(csp).toContain("form-action 'self' http://10.5.50.1:8080;");
    expect(csp).toContain("img-src 'self' data: https://cdn.example.com;");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    expect(csp).toContain(`style-src 'self' 'sha256-${hash}'`);
  });

  it('escapes the reseller’s name, and no CSS could reach another site: its CSP allows no such image', () => {
    // Custom CSS is checked by its parser when saved (custom-css.ts); even a CSS that slipped
    // through could not load a remote image: the policy names only this origin, data: and the logo's host.
    const { html, csp } = renderPortal({
      ...input,
      customCss: '.a { background: url(https://evil.example/x) }',
    });
    expect(html).toContain('Chez &lt;Awa&gt; &amp; &quot;Fils&quot;');
    const img = csp.split(';').find((d) => d.trim().startsWith('img-src')) ?? '';
    expect(img).not.toContain('evil.example');
    expect(renderPortal({ ...input, customCss: '</style><script>x()</script>' }).html).not.toContain(
      '<script>x()',
    );
  });

  it('writes dark text on a light primary colour, and white on a dark one', () => {
    expect(renderPortal(input).html).toContain('--on-p:#111111');
    expect(renderPortal({ ...input, primaryColor: '#0f6cbd' }).html).toContain('--on-p:#ffffff');
  });
});

describe('the portal’s language and words', () => {
  it.each([
    [undefined, undefined, 'fr'],
    ['en', 'fr-FR', 'en'],
    [undefined, 'en-US,en;q=0.9', 'en'],
    [undefined, 'de-DE, en;q=0.5, fr;q=0.8', 'fr'],
    [undefined, 'de-DE', 'fr'],
    ['xx', 'en', 'en'],
  ])('picks lang=%s / Accept-Language %s as %s', (explicit, header, expected) => {
    expect(pickLang(explicit, header)).toBe(expected);
  });

  it('words forfaits and time left for a subscriber', () => {
    expect(priceText('fr', 1500).replace(/\s/g, ' ')).toBe('1 500 FCFA');
    expect(durationText('fr', 72)).toBe('3 jours');
    expect(durationText('en', 1)).toBe('1 hour');
    expect(dataText('fr', 1536)).toBe('1,5\u00a0Go de données');
    expect(remainingText('fr', 2 * 3600 + 15 * 60)).toBe('2 heures 15 min');
  });
});

describe('the generated console assets', () => {
  it('are current (run `npm run console` after changing console/)', async () => {
    expect(readFileSync('functions/console/assets.generated.ts', 'utf8')).toBe(await consoleAssetsModule());
  }, 30_000);
});

describe('the generated portal assets', () => {
  it('are current (run `npx tsx bin/portal-assets.ts` after changing portal/)', async () => {
    expect(readFileSync('functions/portal/assets.generated.ts', 'utf8')).toBe(await portalAssetsModule());
  });
});
