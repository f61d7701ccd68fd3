import { describe, expect, it } from 'vitest';
import { etagMatches } from '../../functions/network/branding.js';
import { logoUrlProblem } from '../../functions/network/branding-rules.js';
import {
  hostOf,
  isNasIdShape,
  nasIdOf,
  siteNasIdOf,
  slugify,
  ssidOf,
  subnetOf,
} from '../../functions/network/naming.js';
import { cssProblem } from '../support/custom-css.js';

describe('slugs and names', () => {
  it.each([
    ['Chez Awa', 'chez_awa'],
    ['Café Étoile', 'cafe_etoile'],
    ['  MAQUIS -- Le Bon Coin!! ', 'maquis_le_bon_coin'],
    ['Wi-Fi Plateau 2', 'wi_fi_plateau_2'],
    ['Ñandú & Çà', 'nandu_ca'],
    ['Ōsaka', 'osaka'],
    ['ÉCOLE—Ñ°1', 'ecole_n_1'],
    ['Boutique ﬁne', 'boutique_fine'],
    ['__Déjà vu__', 'deja_vu'],
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

  it('keeps the whole name and city in the SSID, as the spec shapes it', () => {
    expect(ssidOf('Le Grand Maquis de la Riviera', 'Yamoussoukro')).toBe(
      'ACCESS Le Grand Maquis de la Riviera Yamoussoukro',
    );
  });

  it('caps a slug at 64 characters without a trailing underscore', () => {
    const slug = slugify(`${'a'.repeat(63)} bcd`);
    expect(slug).toBe('a'.repeat(63));
    expect(slugify('ﷺ'.repeat(64)).length).toBeLessThanOrEqual(64);
  });

  it('tells NAS ids this service could have issued from anything else', () => {
    expect(isNasIdShape('access_chez_awa')).toBe(true);
    expect(isNasIdShape('access_chez_awa_s12')).toBe(true);
    expect(isNasIdShape('ACCESS_CHEZ')).toBe(false);
    expect(isNasIdShape('access_')).toBe(false);
    expect(isNasIdShape('other_thing')).toBe(false);
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
    ['https://0x7f.1/logo.png', 'IP'],
    ['https://[::ffff:127.0.0.1]/logo.png', 'IP'],
    ['https://[fe80::1]/logo.png', 'IP'],
    ['https://localhost./logo.png', 'public'],
    ['https://Printer.LAN/logo.png', 'public'],
    ['https://metadata.google.internal/logo.png', 'public'],
    ['https://127.0.0.1.nip.io/logo.png', 'public'],
    ['https://10-0-0-1.sslip.io/logo.png', 'public'],
    ['javascript:alert(1)', 'https'],
    ['data:image/png;base64,AAAA', 'https'],
    ['not a url', 'absolute'],
  ])('refuses %s', (url, why) => {
    expect(logoUrlProblem(url)).toContain(why);
  });
});

describe('branding: custom CSS', () => {
  it('accepts ordinary CSS and inline images', () => {
    expect(cssProblem('.banner { color: #fff; background: #0f6cbd; }')).toBeNull();
    expect(cssProblem('.logo { background: url("data:image/png;base64,iVBORw0KGgo=") }')).toBeNull();
    // A path on the portal's own origin: same-origin images are allowed.
    expect(cssProblem('.a { background: url(/img/x.png) }')).toBeNull();
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
    ['@\\69mport "x.css";', '@import'],
    ['.a { background: URL( "https://evil.example/x" ) }', 'url()'],
    ['.a { background: JavaScript:alert(1) }', 'javascript'],
    ['.a { background-image: image-set("https://evil.example/x.png" 1x) }', 'image-set'],
    ['.a { background-image: -webkit-image-set("https://evil.example/x.png" 1x) }', 'image-set'],
    ['.a {} </STYLE><script>x</script>', '<'],
    ['.a { width: e\\78pression(alert(1)) }', 'expression'],
  ])('refuses %j', (css, why) => {
    expect(cssProblem(css)).toContain(why);
  });

  it('survives escapes beyond Unicode, as a browser does', () => {
    expect(cssProblem('.a { content: "\\110000 \\d800 \\0" }')).toBeNull();
  });

  it('accepts exactly 10 KB', () => {
    expect(cssProblem(`.a{}${' '.repeat(10 * 1024 - 4)}`)).toBeNull();
  });

  it('refuses more than 10 KB', () => {
    expect(cssProblem(`.a{}${' '.repeat(10 * 1024)}`)).toContain('10 KB');
  });
});

describe('branding: ETag revalidation', () => {
  it('matches the same tag, a weak form of it, a list holding it, and *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
  });

  it('does not match another tag or no header', () => {
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
    expect(etagMatches('abc', '"abc"')).toBe(false);
  });
});
