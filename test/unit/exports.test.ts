import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleUses } from '../support/module-uses.js';

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
 * does not use it either; and each place production loads a module of the defining roots with
 * `import()` in a way whose names the check cannot read.
 */
function unusedExports(): { testOnly: string[]; dead: string[]; unreadable: string[] } {
  const production = new Map(IMPORTING.flatMap(sources).map((f) => [f, readFileSync(f, 'utf8')] as const));
  const byProduction = moduleUses(production);
  const { handlers, whole } = entryPoints(production);
  const defining = (file: string) => DEFINING.some((root) => file.startsWith(`${root}/`));
  // The exports no production code takes, then which of them a test or the bench takes.
  const unused: { file: string; name: string }[] = [];
  for (const [file] of production) {
    if (!defining(file) || whole.has(file)) continue;
    const prod = byProduction.taken.get(file);
    for (const name of byProduction.exported.get(file) ?? []) {
      if (prod?.names.has(name)) continue;
      if (name === 'handler' && handlers.has(file)) continue;
      if (name === 'run' && file.startsWith('bin/admin/')) continue;
      unused.push({ file, name });
    }
  }
  // Only the tests that name one of those modules need reading.
  const stems = [...new Set(unused.map((u) => basename(u.file).replace(/\.m?tsx?$/, '')))];
  const tests = NOT_PRODUCTION.flatMap(sources)
    .map((f) => [f, readFileSync(f, 'utf8')] as const)
    .filter(([, text]) => stems.some((stem) => text.includes(`/${stem}.`)));
  const byAnyone = moduleUses(new Map([...production, ...tests]));
  const testOnly: string[] = [];
  const dead: string[] = [];
  for (const { file, name } of unused) {
    const any = byAnyone.taken.get(file);
    if (any?.all || any?.names.has(name)) testOnly.push(`${file} ${name}`);
    else if (name !== 'default' && occurrences(production.get(file) ?? '', name) <= 1)
      dead.push(`${file} ${name}`);
  }
  const unreadable = byProduction.unreadable
    .filter((u) => defining(u.target))
    .map((u) => `${u.place} loads ${u.target}`);
  return { testOnly: testOnly.sort(), dead: dead.sort(), unreadable };
}

describe('exports', () => {
  it('follows imports, namespaces, dynamic imports (thunks too) and re-exports to the names taken', () => {
    const { taken, exported, unreadable } = moduleUses(
      new Map([
        [
          'functions/x.ts',
          "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport { d, e as f };\nexport { g } from './g.js';\nconst h = 2;\nexport default h;",
        ],
        ['functions/y.ts', 'export const z = 1;\nexport const unused = 2;'],
        [
          'functions/w.ts',
          [
            "import {\n  a,\n  type b as bee,\n} from './x.js';",
            "import * as why from './y.js';",
            'why.z;',
            "const { v } = await import('./v.js');",
            "const m = await import('./m.js');\nm.one; const { two } = m;",
            "import('./t.js').then((t) => t.then1);",
            "import('./t.js').then(({ then2 }) => then2);",
            "(await import('./p.js')).prop;",
            "const load = () => import('./k.js');\nconst { k1 } = await load();",
            "import { lazy } from './lazy.js';\nconst { k2 } = await lazy();",
            "import { s1 } from './star.js';",
            "somewhere(await import('./whole.js'));",
          ].join('\n'),
        ],
        ['functions/v.ts', 'export const v = 1;\nexport const v2 = 2;'],
        ['functions/m.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 3;'],
        ['functions/t.ts', 'export const then1 = 1;\nexport const then2 = 2;\nexport const then3 = 3;'],
        ['functions/p.ts', 'export const prop = 1;\nexport const other = 2;'],
        ['functions/k.ts', 'export const k1 = 1;\nexport const k2 = 2;'],
        ['functions/lazy.ts', "export const lazy = () => import('./k.js');"],
        ['functions/star.ts', "export * from './s.js';\nexport const own = 1;"],
        ['functions/s.ts', 'export const s1 = 1;\nexport const s2 = 2;'],
        ['functions/whole.ts', 'export const w = 1;'],
      ]),
    );
    const names = (file: string) => [...(taken.get(file)?.names ?? [])].sort();
    expect((exported.get('functions/x.ts') ?? []).sort()).toEqual(['a', 'b', 'c', 'd', 'default', 'f', 'g']);
    expect(names('functions/x.ts')).toEqual(['a', 'b']);
    expect(names('functions/y.ts')).toEqual(['z']);
    expect(names('functions/v.ts')).toEqual(['v']);
    expect(names('functions/m.ts')).toEqual(['one', 'two']);
    expect(names('functions/t.ts')).toEqual(['then1', 'then2']);
    expect(names('functions/p.ts')).toEqual(['prop']);
    expect(names('functions/k.ts')).toEqual(['k1', 'k2']);
    // `export *` passes on the names its importers take, not every name of the module.
    expect(names('functions/s.ts')).toEqual(['s1']);
    expect(taken.get('functions/s.ts')?.all).toBe(false);
    // A module handed on whole cannot be followed: the place is reported.
    expect(unreadable).toEqual([{ place: 'functions/w.ts:18', target: 'functions/whole.ts' }]);
  });

  it('no export of functions/ or lib/ is dead or imported by tests only (but those ALLOWED, with their reason)', () => {
    const { testOnly, dead, unreadable } = unusedExports();
    const listed = (e: string) => Object.hasOwn(ALLOWED, e);
    expect({
      testOnly: testOnly.filter((e) => !listed(e)),
      dead: dead.filter((e) => !listed(e)),
      unreadable,
    }).toEqual({ testOnly: [], dead: [], unreadable: [] });
    // Each exception says its kind and its reason.
    expect(Object.entries(ALLOWED).filter(([, why]) => !/^(seam|rule|declaration): \S/.test(why))).toEqual(
      [],
    );
    // The list names only what is still there to name.
    expect(Object.keys(ALLOWED).filter((e) => !testOnly.includes(e) && !dead.includes(e))).toEqual([]);
  });
});
