// A reseller's custom CSS made safe with a real CSS parser (postcss): checked, and served exactly as checked.

import type { Parser, Root } from 'postcss';
import parse from 'postcss/lib/parse';
import valueParser from 'postcss-value-parser';
import { validation } from '../core/errors.js';
import { MAX_CSS_BYTES } from './branding-rules.js';

/**
 * A reseller's custom CSS, made safe with a real CSS parser (postcss): only the branding PUT
 * imports this module, so no other function carries the parser.
 *
 * Only postcss's parser is imported (`postcss/lib/parse`, the very function `postcss.parse` is):
 * the `postcss` entry point also loads LazyResult, Processor, MapGenerator, fromJSON and the rest
 * of the plugin pipeline, none of it used here. Serialising needs no import: `Node#toString()`
 * defaults to `postcss/lib/stringify`, whatever else is loaded.
 */

// `lib/parse.d.ts` types the parser for any syntax (`Root | Document`); the standard CSS parser
// always answers a Root, which is how `lib/postcss.d.ts` types this same function.
const parseCss = parse as Parser<Root>;

/** Undoes CSS escapes as CSS Syntax §4.3.7 does: `\75 rl(` is `url(`. */
function decodeEscapes(text: string): string {
  // One left-to-right pass: in `\\e` the second backslash is escaped, not the start of `\e`.
  return text.replace(
    /\\(?:([0-9a-f]{1,6})[ \t\n\r\f]?|(\r\n|[\s\S]))/gi,
    (_m, hex?: string, char?: string) => {
      if (hex === undefined) return /^[\r\n\f]/.test(char ?? '') ? '' : (char ?? '');
      // Zero, a surrogate or beyond Unicode is U+FFFD.
      const code = Number.parseInt(hex, 16);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return String.fromCodePoint(valid ? code : 0xfffd);
    },
  );
}

/**
 * Removes comments the way a CSS tokenizer does: a `/*` inside a string is text, not the start of
 * a comment (the regex `\/\*[\s\S]*?\*\/` took `content: "/*"` as one, and hid what followed).
 * Strings end at their quote or at an unescaped line break, as in the browser.
 */
function withoutComments(css: string): string {
  let out = '';
  let i = 0;
  while (i < css.length) {
    const c = css[i] as string;
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end === -1 ? css.length : end + 2;
      continue;
    }
    if (c === '\\') {
      out += css.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < css.length && css[j] !== c && !/[\n\r\f]/.test(css[j] as string))
        j += css[j] === '\\' ? 2 : 1;
      out += css.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    out += c;
    i += 1;
  }
  return out;
}

/** What the checks compare against: no comments, escapes decoded, no white space, lower case. */
const canonical = (css: string): string =>
  decodeEscapes(withoutComments(css)).replace(/\s+/g, '').replaceAll('\0', '').toLowerCase();

// Any base outside the page's own origin would do: only the origin of the result matters.
const PORTAL_BASE = 'https://portal.invalid/portal/hotspot';

/** Null when a url() target may be loaded by the portal page, else why not. */
function urlTargetProblem(target: string): string | null {
  const t = target.trim();
  if (/^data:/i.test(t)) {
    return /^data:image\/(png|gif|jpeg|webp)(;base64)?,[a-z0-9+/=%._-]*$/i.test(t)
      ? null
      : 'url() may only hold a data:image (png, jpeg, gif, webp) URI, or a path on the portal itself';
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) || /^[\\/]{2}/.test(t)) {
    return /^(javascript|vbscript):/i.test(t)
      ? 'must not use javascript: or vbscript: URLs'
      : 'url() may only hold a data:image (png, jpeg, gif, webp) URI, or a path on the portal itself';
  }
  // The browser's own URL parser decides: `/\evil.example`, `/\t/evil.example` leave the origin.
  let resolved: URL;
  try {
    resolved = new URL(t, PORTAL_BASE);
  } catch {
    return 'url() must hold a valid URL';
  }
  return resolved.origin === new URL(PORTAL_BASE).origin
    ? null
    : 'url() may only hold a data:image (png, jpeg, gif, webp) URI, or a path on the portal itself';
}

const FORBIDDEN_AT_RULES: Record<string, string> = {
  import: 'must not use @import',
  charset: 'must not use @charset',
  namespace: 'must not use @namespace',
};

// Functions that fetch from a URL written as a plain string, or run script.
const FORBIDDEN_FUNCTIONS: Record<string, string> = {
  expression: 'must not use expression()',
  'image-set': 'must not use image-set()',
  '-webkit-image-set': 'must not use image-set()',
  image: 'must not use image()',
  src: 'must not use src()',
  'cross-fade': 'must not use cross-fade()',
  '-webkit-cross-fade': 'must not use cross-fade()',
};

/** The checks on one value (a declaration's value or an at-rule's parameters), by its tokens. */
function valueProblems(value: string, problems: Set<string>): void {
  valueParser(value).walk((node) => {
    if (node.type === 'function') {
      const name = decodeEscapes(node.value).toLowerCase();
      const why = FORBIDDEN_FUNCTIONS[name];
      if (why) problems.add(why);
      if (name === 'url') {
        const target = decodeEscapes(node.nodes.map((n) => valueParser.stringify(n)).join(''))
          .trim()
          .replace(/^(['"])([\s\S]*)\1$/, '$2');
        const problem = urlTargetProblem(target);
        if (problem) problems.add(problem);
        return false;
      }
    }
    if (
      (node.type === 'word' || node.type === 'string') &&
      /(java|vb)script:/i.test(decodeEscapes(node.value))
    )
      problems.add('must not use javascript: or vbscript: URLs');
    return undefined;
  });
}

/**
 * The checks on the whole serialised text, whatever its structure: a safety net for the places
 * where postcss's error recovery and a browser's could differ.
 */
function textProblems(css: string, problems: Set<string>): void {
  const c = canonical(css);
  for (const [needle, why] of [
    ['@import', 'must not use @import'],
    ['@charset', 'must not use @charset'],
    ['@namespace', 'must not use @namespace'],
    ['expression(', 'must not use expression()'],
    ['javascript:', 'must not use javascript: or vbscript: URLs'],
    ['vbscript:', 'must not use javascript: or vbscript: URLs'],
    ['behavior', 'must not use behavior'],
    ['-moz-binding', 'must not use -moz-binding'],
    ['image-set(', 'must not use image-set()'],
    ['image(', 'must not use image()'],
    ['src(', 'must not use src()'],
    ['cross-fade(', 'must not use cross-fade()'],
    ['</', 'must not contain </'],
  ] as const) {
    if (c.includes(needle)) problems.add(why);
  }
  for (const m of c.matchAll(/url\(([^)]*)\)?/g)) {
    const problem = urlTargetProblem((m[1] ?? '').replace(/^(['"])([\s\S]*)\1$/, '$2'));
    if (problem) problems.add(problem);
  }
}

/** Every node of a parsed stylesheet checked; comments removed from the tree. */
function treeProblems(root: Root, problems: Set<string>): void {
  root.walk((node) => {
    switch (node.type) {
      case 'comment':
        node.remove();
        return;
      case 'atrule': {
        const name = decodeEscapes(node.name).toLowerCase();
        const why = FORBIDDEN_AT_RULES[name];
        if (why) problems.add(why);
        valueProblems(node.params, problems);
        return;
      }
      case 'decl': {
        const prop = decodeEscapes(node.prop).toLowerCase();
        if (prop === 'behavior' || prop === '-ms-behavior') problems.add('must not use behavior');
        if (prop === '-moz-binding') problems.add('must not use -moz-binding');
        valueProblems(node.value, problems);
        return;
      }
      default:
        return;
    }
  });
}

type CustomCssResult = { ok: true; css: string } | { ok: false; problems: string[] };

/**
 * Parses a reseller's CSS with postcss, checks every node and the serialised whole, and answers
 * either the problems (a 400 on PUT) or the CSS to serve, as postcss serialises it without its
 * comments. What is served is exactly what was checked.
 */
function safeCustomCss(css: string): CustomCssResult {
  if (Buffer.byteLength(css, 'utf8') > MAX_CSS_BYTES)
    return { ok: false, problems: ['must be at most 10 KB'] };
  // Inlined in a <style> element: `</style` would end it, whatever CSS makes of it.
  if (css.includes('<')) return { ok: false, problems: ['must not contain <'] };
  const problems = new Set<string>();
  let root: Root;
  try {
    // `prev: false`: a sourceMappingURL comment in the CSS must never make the server read a file.
    root = parseCss(css, { map: { prev: false } });
  } catch (error) {
    // Say what was recognisable anyway (`@\69mport` is an unnamed at-rule to postcss).
    textProblems(css, problems);
    const reason = (error as { reason?: string }).reason ?? 'syntax error';
    return { ok: false, problems: [...problems, `is not valid CSS (${reason})`] };
  }
  treeProblems(root, problems);
  const out = root.toString().trim();
  textProblems(out, problems);
  return problems.size > 0 ? { ok: false, problems: [...problems] } : { ok: true, css: out };
}

/**
 * The CSS to save: as its parser serialised it (comments and tricks gone), so the CSS served is
 * exactly the CSS checked. A 400 naming every problem otherwise.
 */
export function checkedCustomCss(css: string): string {
  const checked = safeCustomCss(css);
  if (!checked.ok) {
    throw validation('Invalid body', [{ path: 'body.custom_css', message: checked.problems.join('; ') }]);
  }
  return checked.css;
}
