import { describe, expect, it } from 'vitest';
import { logoUrlProblem, normalizedLogoUrl } from '../../functions/network/branding-rules.js';
import { cssProblem, putCss } from '../support/custom-css.js';

const refused = (css: string): string => {
  const result = putCss(css);
  if (result.ok) throw new Error(`accepted: ${css}`);
  return result.problems;
};

describe('custom CSS: what is accepted', () => {
  it.each([
    '.banner { color: #fff; background: #0f6cbd; }',
    '.hero { background: linear-gradient(135deg, #0f6cbd 0%, rgba(255, 200, 0, .8) 100%); }',
    'h1 { font: 700 1.4rem/1.2 system-ui, sans-serif; color: hsl(20 80% 40%) }',
    '.logo { background: url("data:image/png;base64,iVBORw0KGgo=") }',
    '.logo { background-image: url(data:image/webp;base64,UklGRg==) }',
    '.tile { background: url(/portal/assets/tile.png) no-repeat }',
    ".tile { background: url('img/tile.jpeg') }",
    '@media (min-width: 600px) { main { max-width: 40rem } }',
    '.q::before { content: "\\201C" }',
  ])('accepts %j', (css) => {
    expect(cssProblem(css)).toBeNull();
  });

  it('serves the CSS without its comments', () => {
    const result = putCss('/* brand */ .a { color: red } /* end */');
    expect(result).toEqual({ ok: true, css: '.a { color: red }' });
  });

  it('saves a whole stylesheet as postcss serialises it, to the character', () => {
    // Rules, at-rules (with and without a block), declarations, !important, custom properties
    // and comments everywhere: the saved text is the served text, so any change in how it is
    // parsed or serialised shows here.
    const css = [
      '/* head */',
      '.a { color: red; /* in */ background: blue !important }',
      '',
      '@media (min-width: 600px) {',
      '  /* m */ main { max-width: 40rem; }',
      '}',
      '@font-face { font-family: "X" }',
      '@supports (display:grid){.g{display:grid}}',
      '@layer base;',
      '.b>.c + .d ~ .e::after { content: "\\201C /* not */" }',
      ':root{--x: { a: b };--y:  1px  }',
      '/* tail */',
    ].join('\n');
    expect(putCss(css)).toEqual({
      ok: true,
      css: [
        '.a { color: red; background: blue !important }',
        '',
        '@media (min-width: 600px) { main { max-width: 40rem; }',
        '}',
        '@font-face { font-family: "X" }',
        '@supports (display:grid){.g{display:grid}}',
        '@layer base;',
        '.b>.c + .d ~ .e::after { content: "\\201C /* not */" }',
        ':root{--x: { a: b };--y:  1px  }',
      ].join('\n'),
    });
  });

  it('names the parser error of CSS that does not parse, as postcss words it', () => {
    expect(putCss('.a { color: "red }')).toEqual({
      ok: false,
      problems: 'is not valid CSS (Unclosed string)',
    });
    expect(putCss('.a color: red')).toEqual({
      ok: false,
      problems: 'is not valid CSS (Unknown word color)',
    });
  });

  it('serves exactly what it checked: a comment cannot rejoin two tokens after the check', () => {
    const result = putCss('.a { background: u/**/rl(https://evil.example/x) }');
    expect(result.ok).toBe(false);
  });
});

describe('custom CSS: what is refused', () => {
  it('sees a url() that follows a string holding /* (the regex comment-stripping bypass)', () => {
    const css =
      '.a { content: "/*" } .b { background: url(https://evil.example/x.png) } .c { content: "*/" }';
    expect(refused(css)).toContain('url()');
  });

  it('sees an @import that follows a string holding /*', () => {
    expect(
      refused(".a { content: '/*' } @import 'https://evil.example/x.css'; .b { content: '*/' }"),
    ).toContain('@import');
  });

  it.each([
    ['@import url(https://evil.example/x.css);'],
    ['@import "x.css";'],
    ["@import 'x.css' screen;"],
    ['@IMPORT url(x.css);'],
    ['@\\69mport "x.css";'],
    ['@\\000069 mport "x.css";'],
    ['@im\\port "x.css";'],
    ['.a { color: red } @import "late.css";'],
    ['@media screen { @import "nested.css"; }'],
  ])('refuses @import written as %j', (css) => {
    expect(refused(css)).toContain('@import');
  });

  it.each([
    ['@charset "utf-8";', '@charset'],
    ['@namespace svg url(http://www.w3.org/2000/svg);', '@namespace'],
    ['@font-face { font-family: x; src: url(https://fonts.example/x.woff2) }', 'url()'],
  ])('refuses %j', (css, why) => {
    expect(refused(css)).toContain(why);
  });

  it.each([
    ['.a { background: url(https://tracker.example/p.gif) }'],
    ['.a { background: url(http://tracker.example/p.gif) }'],
    ["div { background: url('//evil.example/x') }"],
    ['.a { background: url(/\\/evil.example/x) }'],
    ['.a { background: url("/\\\\evil.example/x") }'],
    ['.a { background: URL( "https://evil.example/x" ) }'],
    ['.a { background: \\75 rl(https://evil.example/x) }'],
    ['.a { background: \\55 RL(https://evil.example/x) }'],
    ['.a { background: u\\72l(https://evil.example/x) }'],
    ['.a { background: url(\\68ttps://evil.example/x) }'],
    ['.a { background: url(data:image/svg+xml;base64,PHN2Zz4=) }'],
    ['.a { background: url("data:image/svg+xml,<svg/>") }'],
    ['.a { background: url(data:text/html;base64,PHNjcmlwdD4=) }'],
    ['.a { cursor: url(ftp://evil.example/c.cur), auto }'],
  ])('refuses the remote or scripted url() in %j', (css) => {
    expect(refused(css)).toMatch(/url\(\)|<|javascript/);
  });

  it.each([
    ['.a { width: expression(alert(1)) }', 'expression'],
    ['.a { width: e\\78pression(alert(1)) }', 'expression'],
    ['.a { background: url(javascript:alert(1)) }', 'javascript'],
    ['.a { background: JavaScript:alert(1) }', 'javascript'],
    ['.a { behavior: url(x.htc) }', 'behavior'],
    ['.a { behavio\\72: url(x.htc) }', 'behavior'],
    ['.a { -moz-binding: url(x.xml#y) }', 'binding'],
    ['.a { background-image: image-set("https://evil.example/x.png" 1x) }', 'image-set'],
    ['.a { background-image: -webkit-image-set("https://evil.example/x.png" 1x) }', 'image-set'],
    ['.a {} </style><script>alert(1)</script>', '<'],
    ['.a {} </STYLE><script>x</script>', '<'],
  ])('refuses %j', (css, why) => {
    expect(refused(css)).toContain(why);
  });

  it('refuses more than 10 KB and accepts exactly 10 KB', () => {
    expect(cssProblem(`.a{}${' '.repeat(10 * 1024 - 4)}`)).toBeNull();
    expect(cssProblem(`.a{}${' '.repeat(10 * 1024)}`)).toContain('10 KB');
  });

  it('refuses what does not parse as CSS', () => {
    expect(refused('.a { color: red ')).toContain('valid CSS');
  });
});

describe('logo URL', () => {
  it('accepts a public https host and answers it as the URL parser serialises it', () => {
    expect(logoUrlProblem('https://CDN.Example.com:443/img/logo@2x.png?v=2')).toBeNull();
    expect(normalizedLogoUrl('https://CDN.Example.com:443/img/logo@2x.png?v=2')).toBe(
      'https://cdn.example.com/img/logo@2x.png?v=2',
    );
  });

  it.each([
    ['https://evil.example\\@169.254.169.254/logo.png', 'backslash'],
    ['https://evil.example@169.254.169.254/logo.png', 'credentials'],
    ['https://user@cdn.example.com/logo.png', 'credentials'],
    ['https://cdn.example.com:8443/logo.png', 'port'],
    ['https://169.254.169.254/latest/meta-data', 'IP'],
    ['https://0251.0376.0251.0376/x.png', 'IP'],
    ['https://0xa9fea9fe/x.png', 'IP'],
    ['https://[::ffff:a9fe:a9fe]/x.png', 'IP'],
    ['https://cdn.example.com/x .png', 'spaces'],
    ['https://cdn.exa\tmple.com/x.png', 'control'],
    ['https:cdn.example.com/x.png', 'https://'],
    ['https:/cdn.example.com/x.png', 'https://'],
    ['http://cdn.example.com/x.png', 'https'],
    ['https://logo/x.png', 'public'],
    ['https://café.example/x.png', 'ASCII'],
  ])('refuses %s', (url, why) => {
    expect(logoUrlProblem(url)).toContain(why);
    expect(normalizedLogoUrl(url)).toBeUndefined();
  });
});

describe('a sourceMappingURL comment in custom CSS', () => {
  it('cannot make the server read one of its files', () => {
    // postcss reads the map an annotation names unless told not to: /etc/hostname is no map.
    expect(putCss('.a { color: red }\n/*# sourceMappingURL=/etc/hostname */')).toEqual({
      ok: true,
      css: '.a { color: red }',
    });
  });
});
