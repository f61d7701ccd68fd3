import { describe, expect, it } from 'vitest';
import { customCssProblem, logoUrlProblem } from '../../functions/network/branding-rules.js';
import { hostOf, nasIdOf, siteNasIdOf, slugify, ssidOf, subnetOf } from '../../functions/network/naming.js';

describe('slugs and names', () => {
  it.each([
    ['Chez Awa', 'chez_awa'],
    ['Café Étoile', 'cafe_etoile'],
    ['  MAQUIS -- Le Bon Coin!! ', 'maquis_le_bon_coin'],
    ['Wi-Fi Plateau 2', 'wi_fi_plateau_2'],
    ['Ñandú & Çà', 'nandu_ca'],
    ['Ōsaka', 'osaka'],
    ['!!!', ''],
  ])('folds %j to %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('builds NAS ids and SSIDs per the spec', () => {
    expect(nasIdOf('chez_awa')).toBe('access_chez_awa');
    expect(siteNasIdOf('chez_awa', 3)).toBe('access_chez_awa_s3');
    expect(ssidOf('Chez Awa')).toBe('ACCESS Chez Awa');
    expect(ssidOf('Chez Awa', 'Bouaké')).toBe('ACCESS Chez Awa Bouaké');
  });

  it('keeps SSIDs within 32 bytes, cutting at a character boundary', () => {
    const ssid = ssidOf('Le Grand Maquis de la Riviera', 'Yamoussoukro');
    expect(Buffer.byteLength(ssid, 'utf8')).toBeLessThanOrEqual(32);
    expect(ssid.startsWith('ACCESS Le Grand Maquis')).toBe(true);
    expect(Buffer.byteLength(ssidOf('ééééééééééééééééééééééééé'), 'utf8')).toBeLessThanOrEqual(32);
  });

  it('gives every VLAN of the pool its own valid /24, matching the spec up to 255', () => {
    expect(subnetOf(10)).toBe('10.10.0.0/24');
    expect(subnetOf(255)).toBe('10.255.0.0/24');
    expect(subnetOf(256)).toBe('10.0.1.0/24');
    expect(subnetOf(409)).toBe('10.153.1.0/24');
    const all = new Set(Array.from({ length: 400 }, (_, i) => subnetOf(10 + i)));
    expect(all.size).toBe(400);
    expect(hostOf(10, 2)).toBe('10.10.0.2');
  });
});

describe('branding: logo URL', () => {
  it.each(['https://cdn.example.com/logo.png', 'https://static.awa-wifi.ci/img/logo.svg?v=2'])(
    'accepts %s',
    (url) => {
      expect(logoUrlProblem(url)).toBeNull();
    },
  );

  it.each([
    ['http://cdn.example.com/logo.png', 'https'],
    ['https://10.0.0.1/logo.png', 'IP'],
    ['https://[::1]/logo.png', 'IP'],
    ['https://2130706433/logo.png', 'IP'],
    ['https://localhost/logo.png', 'public'],
    ['https://router.local/logo.png', 'public'],
    ['https://intranet/logo.png', 'public'],
    ['https://user:pw@cdn.example.com/logo.png', 'credentials'],
    ['javascript:alert(1)', 'https'],
    ['not a url', 'absolute'],
  ])('refuses %s', (url, why) => {
    expect(logoUrlProblem(url)).toContain(why);
  });
});

describe('branding: custom CSS', () => {
  it('accepts ordinary CSS and inline images', () => {
    expect(customCssProblem('.banner { color: #fff; background: #0f6cbd; }')).toBeNull();
    expect(customCssProblem('.logo { background: url("data:image/png;base64,iVBORw0KGgo=") }')).toBeNull();
  });

  it.each([
    ['@import url(https://evil.example/x.css);', '@import'],
    ['@IMPORT "x.css";', '@import'],
    ['.a { width: expression(alert(1)) }', 'expression'],
    ['.a { background: url(javascript:alert(1)) }', 'javascript'],
    ['.a { background: url(https://tracker.example/p.gif) }', 'url()'],
    ["div { background: url('//evil.example/x') }", 'url()'],
    ['.a { background: \\75 rl(https://evil.example/x) }', 'url()'],
    ['.a { background: u/**/rl(https://evil.example/x) }', 'url()'],
    ['.a {} </style><script>alert(1)</script>', '<'],
    ['.a { behavior: url(x.htc) }', 'behavior'],
    ['.a { -moz-binding: url(x.xml#y) }', 'binding'],
    ['.a { background: url(data:image/svg+xml;base64,PHN2Zz4=) }', 'url()'],
  ])('refuses %j', (css, why) => {
    expect(customCssProblem(css)).toContain(why);
  });

  it('refuses more than 10 KB', () => {
    expect(customCssProblem(`.a{}${' '.repeat(10 * 1024)}`)).toContain('10 KB');
  });
});
