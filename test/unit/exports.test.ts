import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No export of the production code is dead or there for tests only: an export that only a test
 * imports is a test's reach into a module's inside (test the behaviour through what production
 * uses instead), and one nobody imports nor uses is dead. The exceptions are named, each with its
 * reason, in ALLOWED (docs/conventions.md, "Tests"). (An export used in its own module only is
 * not listed: its `export` is just unneeded.)
 *
 * Production code: the exports of functions/ and lib/, imported by each other and by bin/ (the
 * CDK app, the local host, the operators' CLI), portal/ and console/; tests and the bench are the
 * other importers. An
 * export counts as imported when a file imports it by name (`import type` too), re-exports it,
 * imports its module as a namespace and reads it, or imports its module dynamically; handler
 * modules' `handler` (the route table, jobs, stream consumers and the stack's own constructs name them by path), the
 * operators' CLI commands' `run` (bin/admin.ts loads them by name) and the bundles' stand-ins
 * (lib/bundling.ts aliases packages to them) are used by construction.
 */
const DEFINING = ['functions', 'lib'];
const IMPORTING = [...DEFINING, 'bin', 'portal', 'console'];
const NOT_PRODUCTION = ['test', 'bench'];

/**
 * The exports kept though no production code imports them, each with its reason. Two kinds only:
 * a test seam (what swaps or watches a client a test must control), and a declaration or a pure
 * rule a test must reach directly because no production caller can set up its cases (say which,
 * and where the test is). Anything else is tested through what production calls, or goes. An
 * entry no longer dead or test-only fails the test, so the list names only what is there.
 */
const ALLOWED: Record<string, string> = {
  'functions/core/lazy-sns.ts resetSns': "seam: a test swaps the SNS client's mock between cases",
  'functions/billing/codes.ts VOUCHER_ALPHABET':
    "declaration: the codes' alphabet, from which docs/security.md's guessing odds are computed (test/unit/guess-odds.test.ts)",
  'functions/radius/guesses.ts GUESS_BUDGETS':
    "declaration: the guess budgets, from which docs/security.md's guessing odds are computed (test/unit/guess-odds.test.ts) and which test/http/code-oracle.test.ts spends exactly",
  'functions/network/vlans.ts pickFree':
    "rule: the window under contention (allocations running, races lost, the draw) cannot be set through allocateVlan's callers (test/integration/vlans.test.ts)",
  'functions/store/alerts.ts AlertEntity':
    "declaration: every entity's index keys are checked (test/unit/entity-update.test.ts)",
  'functions/store/disconnects.ts Disconnect':
    "declaration: every entity's index keys are checked (test/unit/entity-update.test.ts), its items read by key (test/integration/store-indexes.test.ts)",
  'functions/store/forfaits.ts ForfaitEntity':
    "declaration: every entity's index keys are checked (test/unit/entity-update.test.ts), its items written and read by key (test/integration/own-forfaits.test.ts, store-indexes.test.ts)",
  'functions/store/gateway-rules.ts Rule':
    "declaration: every entity's index keys are checked (test/unit/entity-update.test.ts)",
  'functions/store/vlans.ts Vlan':
    "declaration: every entity's index keys are checked (test/unit/entity-update.test.ts)",
  'functions/routers/front-tls.ts oneAtATime':
    "rule: ECS's rounding of a deployment's maximum percent at every task count from 1 to 10, which the rotation's callers reach one count at a time (test/unit/front-tls.test.ts)",
  'functions/routers/keys-client.ts resetRouterKeys':
    "seam: a test swaps the Lambda client's mock between cases (test/integration/router-keys.test.ts)",
  'lib/observability.ts ourDimensions':
    "declaration: the stack's side of the metrics' dimensions, which the functions' EMF must match (test/unit/metrics.test.ts) without a stack synthesized",
};

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The names a module exports (its own declarations, `export { ... }` lists and re-exports). */
function exportedNames(text: string): string[] {
  const names = new Set<string>();
  const declared =
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declared)) names.add(m[1] as string);
  if (/^export\s+default\b/m.test(text)) names.add('default');
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const part of (m[1] as string).split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  return [...names];
}

/** What a module takes from another: names, or everything (a namespace read as a whole, a dynamic import). */
interface Taken {
  names: Set<string>;
  all: boolean;
}

/** Resolves a relative specifier of `from` to a project file, `.js` read as `.ts` (or `.tsx`), `.mjs` as `.mts`. */
function resolveSpecifier(from: string, spec: string, files: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = relative('.', resolve(dirname(from), spec));
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => files.has(c));
}

/** For each file, what the other files take from it. */
function takenFrom(texts: Map<string, string>): Map<string, Taken> {
  const files = new Set(texts.keys());
  const taken = new Map<string, Taken>();
  const of = (file: string) => {
    let t = taken.get(file);
    if (!t) {
      t = { names: new Set(), all: false };
      taken.set(file, t);
    }
    return t;
  };
  const statement = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gms;
  for (const [file, text] of texts) {
    for (const m of text.matchAll(statement)) {
      const target = resolveSpecifier(file, m[4] as string, files);
      if (!target || target === file) continue;
      const clause = m[3] as string;
      const t = of(target);
      const named = /\{([^}]*)\}/s.exec(clause);
      if (named)
        for (const part of (named[1] as string).split(',')) {
          const name = part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]
            ?.trim();
          if (name) t.names.add(name);
        }
      const namespace = /\*\s+as\s+([A-Za-z_$][\w$]*)/.exec(clause);
      if (namespace) {
        const reads = text.matchAll(new RegExp(`\\b${namespace[1]}\\.([A-Za-z_$][\\w$]*)`, 'g'));
        for (const r of reads) t.names.add(r[1] as string);
      } else if (clause.trim() === '*') t.all = true;
      const head = clause.replace(/\{[^}]*\}/s, '').trim();
      if (m[1] === 'import' && /^[A-Za-z_$][\w$]*\s*(,|$)/.test(head)) t.names.add('default');
    }
    for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const target = resolveSpecifier(file, m[1] as string, files);
      if (target && target !== file) of(target).all = true;
    }
  }
  return taken;
}

/** Files used by construction: handler modules (by their `handler`) and the bundles' stand-ins (whole). */
function entryPoints(texts: Map<string, string>): { handlers: Set<string>; whole: Set<string> } {
  const handlers = new Set<string>();
  for (const table of ['functions/routes.ts', 'functions/jobs.ts', 'functions/streams.ts'])
    for (const m of (texts.get(table) ?? '').matchAll(/handler:\s*'([^']+)'/g))
      handlers.add(`functions/${m[1]}.ts`);
  // The stack's constructs that build a function of their own name its module the same way.
  for (const [file, text] of texts)
    if (file.startsWith('lib/'))
      for (const m of text.matchAll(/handler:\s*'([\w-]+\/[\w/-]+)'/g)) handlers.add(`functions/${m[1]}.ts`);
  handlers.add('functions/monitoring/canary.ts');
  const whole = new Set(
    [...(texts.get('lib/bundling.ts') ?? '').matchAll(/standIn\('([^']+)'\)/g)].map(
      (m) => `lib/lambda/${m[1]}`,
    ),
  );
  return { handlers, whole };
}

/** How often `name` occurs in `text` as a word. */
const occurrences = (text: string, name: string) =>
  text.match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))?.length ?? 0;

/**
 * Every export of the defining roots that no other production file imports, as `file name`:
 * `test-only` when a test or the bench imports it, `dead` when nothing does and its own module
 * does not use it either.
 */
function unusedExports(): { testOnly: string[]; dead: string[] } {
  const production = new Map(IMPORTING.flatMap(sources).map((f) => [f, readFileSync(f, 'utf8')] as const));
  const everything = new Map([
    ...production,
    ...NOT_PRODUCTION.flatMap(sources).map((f) => [f, readFileSync(f, 'utf8')] as const),
  ]);
  const byProduction = takenFrom(production);
  const byAnyone = takenFrom(everything);
  const { handlers, whole } = entryPoints(production);
  const testOnly: string[] = [];
  const dead: string[] = [];
  for (const [file, text] of production) {
    if (!DEFINING.some((root) => file.startsWith(`${root}/`)) || whole.has(file)) continue;
    const prod = byProduction.get(file);
    if (prod?.all) continue;
    for (const name of exportedNames(text)) {
      if (prod?.names.has(name)) continue;
      if (name === 'handler' && handlers.has(file)) continue;
      if (name === 'run' && file.startsWith('bin/admin/')) continue;
      const any = byAnyone.get(file);
      if (any?.all || any?.names.has(name)) testOnly.push(`${file} ${name}`);
      else if (name !== 'default' && occurrences(text, name) <= 1) dead.push(`${file} ${name}`);
    }
  }
  return { testOnly: testOnly.sort(), dead: dead.sort() };
}

describe('exports', () => {
  it('reads declarations, lists and re-exports, and what importers take', () => {
    expect(
      exportedNames(
        [
          'export const a = 1;',
          'export async function b() {}',
          'export type C = string;',
          'export { d, e as f };',
          "export { g } from './g.js';",
          'const h = 2;',
          'export default h;',
        ].join('\n'),
      ).sort(),
    ).toEqual(['C', 'a', 'b', 'd', 'default', 'f', 'g']);
    const taken = takenFrom(
      new Map([
        ['functions/x.ts', 'export const a = 1;\nexport const b = 2;\nexport const c = 3;'],
        ['functions/y.ts', 'export const z = 1;'],
        [
          'functions/w.ts',
          "import {\n  a,\n  type b as bee,\n} from './x.js';\nimport * as why from './y.js';\nwhy.z;\nconst l = () => import('./v.js');",
        ],
        ['functions/v.ts', 'export const v = 1;'],
      ]),
    );
    expect([...(taken.get('functions/x.ts')?.names ?? [])].sort()).toEqual(['a', 'b']);
    expect([...(taken.get('functions/y.ts')?.names ?? [])]).toEqual(['z']);
    expect(taken.get('functions/v.ts')?.all).toBe(true);
  });

  it('no export of functions/ or lib/ is dead or imported by tests only (but those ALLOWED, with their reason)', () => {
    const { testOnly, dead } = unusedExports();
    const listed = (e: string) => Object.hasOwn(ALLOWED, e);
    expect({ testOnly: testOnly.filter((e) => !listed(e)), dead: dead.filter((e) => !listed(e)) }).toEqual({
      testOnly: [],
      dead: [],
    });
    // Each exception says its kind and its reason.
    expect(Object.entries(ALLOWED).filter(([, why]) => !/^(seam|rule|declaration): \S/.test(why))).toEqual(
      [],
    );
    // The list names only what is still there to name.
    expect(Object.keys(ALLOWED).filter((e) => !testOnly.includes(e) && !dead.includes(e))).toEqual([]);
  });
});
