import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The code has no import circle: a circle makes two modules one in all but name (neither can be
 * read, tested or bundled without the other). Relative imports only (packages cannot close a
 * circle through our files); `import type` counts too: a type-only circle is still a layering
 * one. Dynamic `import()` of a computed path (the local server loading handlers) is not seen.
 *
 * The bench and the tests share their helpers one way: what both use (fixtures, fake providers,
 * the bundling and browser helpers, the load generator, the docs/bench.md writer) lives in
 * test/support; bench/ imports test/support and nothing else of test/, and nothing under test/
 * imports bench/.
 */
const ROOTS = ['functions', 'bin', 'lib', 'bench', 'test'];

const SPECIFIER =
  /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Module -> the project modules it imports (paths relative to the repo, `.js` read as `.ts`). */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = (m[1] ?? m[2]) as string;
      const target = relative('.', resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
      if (files.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Imports that cross between bench/ and test/ the wrong way: `from -> to`. */
function wrongWay(graph: Map<string, string[]>): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph)
    for (const to of targets) {
      const testImportsBench = from.startsWith('test/') && to.startsWith('bench/');
      const benchImportsTests =
        from.startsWith('bench/') && to.startsWith('test/') && !to.startsWith('test/support/');
      if (testImportsBench || benchImportsTests) wrong.push(`${from} -> ${to}`);
    }
  return wrong.sort();
}

const projectGraph = () =>
  importGraph(new Map(ROOTS.flatMap(sources).map((f) => [f, readFileSync(f, 'utf8')] as const)));

describe('import circles', () => {
  it('finds a circle, a longer one and a type-only one, and nothing in a chain', () => {
    const g = importGraph(
      new Map([
        ['functions/a/x.ts', "import { y } from './y.js';\nimport type { Z } from '../b/z.js';"],
        ['functions/a/y.ts', "export { x } from './x.js';"],
        ['functions/b/z.ts', "import type {\n  W,\n} from '../c/w.js';"],
        ['functions/c/w.ts', "import type { Z } from '../b/z.js';\nimport 'node:fs';"],
        ['functions/c/v.ts', "import { w } from './w.js';\nimport { z } from 'zod';"],
      ]),
    );
    expect(circles(g)).toEqual([
      ['functions/a/x.ts', 'functions/a/y.ts'],
      ['functions/b/z.ts', 'functions/c/w.ts'],
    ]);
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it(`there is none among ${ROOTS.join(', ')}`, () => {
    const graph = projectGraph();
    // The scan does see the code: the route table imports no handler, but the handlers import it.
    expect(graph.get('functions/auth/session-endpoint.ts')).toContain('functions/routes.ts');
    expect(circles(graph)).toEqual([]);
  });
});

describe('bench/ and test/', () => {
  it('finds a test importing the bench, and the bench importing a test rather than test/support', () => {
    expect(
      wrongWay(
        new Map([
          ['test/unit/a.test.ts', ['bench/run.ts', 'test/support/db.ts']],
          ['bench/run.ts', ['test/support/db.ts', 'test/unit/a.test.ts']],
          ['test/support/db.ts', ['functions/core/ddb.ts']],
        ]),
      ),
    ).toEqual(['bench/run.ts -> test/unit/a.test.ts', 'test/unit/a.test.ts -> bench/run.ts']);
  });

  it('share their helpers one way: the bench imports test/support, no test imports the bench', () => {
    const graph = projectGraph();
    // The scan sees both: the bench does use test/support.
    expect(graph.get('bench/run.ts')).toContain('test/support/bench-doc.ts');
    expect(wrongWay(graph)).toEqual([]);
  });
});
