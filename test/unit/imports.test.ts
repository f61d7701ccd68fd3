import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The code has no import circle: a circle makes two modules one in all but name (neither can be
 * read, tested or bundled without the other). Relative imports only (packages cannot close a
 * circle through our files); `import type` counts too: a type-only circle is still a layering
 * one. Dynamic `import()` of a computed path (the local server loading handlers) is not seen.
 */
const ROOTS = ['functions', 'bin', 'lib'];

/**
 * Circles known and owned by work in flight, each to be removed with that work. A circle listed
 * here that no longer exists does not fail the test; a new circle, or a listed one that grows,
 * does.
 */
const KNOWN: string[][] = [
  // The payment port types and the gateway factory share billing/aggregator.ts with the gateways
  // it builds (issue 18, the gateway registry): remove this entry when that registry lands.
  ['functions/billing/aggregator.ts', 'functions/billing/cinetpay.ts', 'functions/billing/fedapay.ts'],
];

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

const known = (c: string[]) => KNOWN.some((k) => k.length === c.length && k.every((f, i) => f === c[i]));

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

  it(`there is none among ${ROOTS.join(', ')} (besides the known ones listed above)`, () => {
    const files = new Map(ROOTS.flatMap(sources).map((f) => [f, readFileSync(f, 'utf8')] as const));
    const graph = importGraph(files);
    // The scan does see the code: the route table imports no handler, but the handlers import it.
    expect(graph.get('functions/auth/session-endpoint.ts')).toContain('functions/routes.ts');
    expect(circles(graph).filter((c) => !known(c))).toEqual([]);
  });
});
