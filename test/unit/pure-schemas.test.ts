import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { functionBuildOptions } from '../support/bundles.js';

/** Every schemas module of the functions (`functions/<area>/*schemas.ts`). */
function schemaModules(): string[] {
  const root = resolve('functions');
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /(^|\/)[\w-]*schemas\.ts$/.test(f))
    .map((f) => join(root, f));
}

/**
 * The module-level declarations whose value is built by calls (a schema, an object of schemas),
 * and whether each is written `<@__PURE__> schema(() => ...)`.
 */
function declarations(file: string): { name: string; marked: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const calls = (n: ts.Node): boolean =>
    ts.isCallExpression(n) ||
    ts.forEachChild(n, (c) =>
      ts.isArrowFunction(c) || ts.isFunctionExpression(c) ? undefined : calls(c) || undefined,
    ) === true;
  const out: { name: string; marked: boolean }[] = [];
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      const init = d.initializer;
      if (!init || ts.isArrowFunction(init) || ts.isFunctionExpression(init) || !calls(init)) continue;
      // The comment between `=` and the call (esbuild reads it as the call's annotation).
      const before = text.slice(init.getFullStart(), init.getStart(sf));
      const marked =
        ts.isCallExpression(init) &&
        ts.isIdentifier(init.expression) &&
        init.expression.text === 'schema' &&
        before.includes('/* @__PURE__ */');
      out.push({ name: d.name.getText(sf), marked });
    }
  }
  return out;
}

/** The payment status function bundled as deployed; `strip` removes the marks first. */
async function paymentStatusBundle(strip: boolean): Promise<string> {
  const unmark: Plugin = {
    name: 'unmark',
    setup(b) {
      b.onLoad({ filter: /schemas\.ts$/ }, (args) => ({
        contents: readFileSync(args.path, 'utf8').replaceAll('/* @__PURE__ */', ''),
        loader: 'ts',
      }));
    },
  };
  const out = await build({
    ...functionBuildOptions(),
    entryPoints: [resolve('functions/billing/payment-status.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    logLevel: 'silent',
    plugins: strip ? [unmark] : [],
  });
  return out.outputFiles[0]?.text ?? '';
}

describe('module-level schemas are built only in the functions that use them', () => {
  it('writes every module-level schema of every schemas module as a marked schema(...) call', () => {
    const files = schemaModules();
    expect(files.length).toBeGreaterThanOrEqual(10);
    const unmarked = files.flatMap((f) =>
      declarations(f)
        .filter((d) => !d.marked)
        .map((d) => `${f.slice(resolve('.').length + 1)}: ${d.name}`),
    );
    expect(unmarked).toEqual([]);
    // The payments' schemas alone declare some fifteen.
    expect(declarations(resolve('functions/billing/payment-schemas.ts')).length).toBeGreaterThan(10);
  });

  it('leaves the schemas a function does not use out of its bundle, which the marks alone do', async () => {
    // The top-up code's message of the payment's initiation: a schema of the payment status's
    // own schemas module that it never reads.
    const unused = 'must be an access code';
    const marked = await paymentStatusBundle(false);
    expect(marked).toContain('must be a UUID'); // its own path parameter's schema is there
    expect(marked).not.toContain(unused);
    // Without the marks the same build keeps it (and every other schema of the module).
    const unmarked = await paymentStatusBundle(true);
    expect(unmarked).toContain(unused);
    expect(unmarked.length).toBeGreaterThan(marked.length + 5_000);
  });
});
