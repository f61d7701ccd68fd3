/**
 * What each module of the project takes from the others, read from the syntax (TypeScript's
 * parser, no type checker: a whole-program check takes half a minute): the names it imports, the
 * properties it reads of a namespace or of a module loaded with `import()`, and what a re-export
 * (`export { a } from`, `export * from`) passes on from the modules that import it. Used by
 * test/unit/exports.test.ts.
 *
 * A module loaded with `import()` is followed to the names read of it: destructured
 * (`const { a } = await import('./x.js')`), read as a property (`(await import('./x.js')).a`,
 * `mod.a` of `const mod = await import(...)`), or in `.then((m) => m.a)` / `.then(({ a }) => ...)`;
 * the same through a thunk (`const load = () => import('./x.js')`, exported or not), at each of
 * its calls. Any other use (the module handed on whole) is *unreadable*: the check cannot say
 * which exports it uses, and reports the place.
 */
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** What one module takes from another: names, or everything (an importer the check cannot follow). */
export interface Taken {
  names: Set<string>;
  all: boolean;
}

/** A module's own exports and what it passes on from others. */
interface Exports {
  /** Names it exports (declarations, `export { ... }` lists, named re-exports). */
  names: Set<string>;
  /** `export { imported as exported } from target`: exported -> [target, imported]. */
  forwards: Map<string, [string, string]>;
  /** `export * from target`. */
  stars: string[];
}

export interface ModuleUses {
  /** For each file, what the other files take from it (re-exports followed). */
  taken: Map<string, Taken>;
  /** For each file, the names it exports (its own and those it re-exports by name). */
  exported: Map<string, string[]>;
  /** `file:line` of each use of a dynamically loaded project module the check cannot follow. */
  unreadable: { place: string; target: string }[];
}

/** Resolves a relative specifier of `from` to a project file, `.js` read as `.ts` (or `.tsx`), `.mjs` as `.mts`. */
export function resolveSpecifier(from: string, spec: string, files: Set<string>): string | undefined {
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

const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The names a binding (`a`, `{ a, b: c }`, `[a]`) declares. */
function bound(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bound(e.name)));
}

/** The names a module exports, and what it re-exports. */
function exportsOf(file: string, source: ts.SourceFile, files: Set<string>): Exports {
  const out: Exports = { names: new Set(), forwards: new Map(), stars: [] };
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const spec =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      const target = spec === undefined ? undefined : resolveSpecifier(file, spec, files);
      const clause = statement.exportClause;
      if (!clause) {
        if (target) out.stars.push(target);
      } else if (ts.isNamespaceExport(clause)) {
        out.names.add(clause.name.text);
        if (target) out.forwards.set(clause.name.text, [target, '*']);
      } else {
        for (const e of clause.elements) {
          out.names.add(e.name.text);
          if (target) out.forwards.set(e.name.text, [target, (e.propertyName ?? e.name).text]);
        }
      }
    } else if (ts.isExportAssignment(statement)) {
      out.names.add('default');
    } else if (hasExport(statement)) {
      if (hasDefault(statement)) out.names.add('default');
      else if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations)
          for (const n of bound(d.name)) out.names.add(n);
      else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement) ||
          ts.isModuleDeclaration(statement)) &&
        statement.name &&
        ts.isIdentifier(statement.name)
      )
        out.names.add(statement.name.text);
    }
  }
  return out;
}

/** The node whose value an expression becomes once parentheses, `await` and `as` are looked through. */
function looked(node: ts.Node): ts.Node {
  let n = node;
  while (
    ts.isParenthesizedExpression(n.parent) ||
    ts.isAwaitExpression(n.parent) ||
    ts.isAsExpression(n.parent) ||
    ts.isNonNullExpression(n.parent)
  )
    n = n.parent;
  return n;
}

/** The smallest block, function or file around `node`: where a local name it declares is seen. */
function scopeOf(node: ts.Node): ts.Node {
  let n = node.parent;
  while (n && !ts.isBlock(n) && !ts.isSourceFile(n) && !ts.isFunctionLike(n)) n = n.parent;
  return n ?? node.getSourceFile();
}

/** The identifiers named `name` under `scope`, but `declared` itself. */
function referencesTo(name: string, scope: ts.Node, declared: ts.Node): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n) && n.text === name && n !== declared) found.push(n);
    ts.forEachChild(n, visit);
  };
  visit(scope);
  return found;
}

/** The names a destructuring pattern reads, or undefined when it keeps the rest (`...more`). */
function namesOfPattern(pattern: ts.ObjectBindingPattern): string[] | undefined {
  const names: string[] = [];
  for (const e of pattern.elements) {
    if (e.dotDotDotToken) return undefined;
    const key = e.propertyName ?? e.name;
    if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) return undefined;
    names.push(key.text);
  }
  return names;
}

/**
 * The names read of a module value at `node` (an `import()`, a thunk's call, or a name bound to
 * the module): undefined when it is used in a way that cannot be followed.
 */
function namesReadOf(node: ts.Node): string[] | undefined {
  const value = looked(node);
  const parent = value.parent;
  const awaited = value !== node;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === value) {
    const name = parent.name.text;
    if (name !== 'then' || awaited) return [name];
    // `.then(cb)`: what the callback reads of its parameter.
    const call = parent.parent;
    if (!ts.isCallExpression(call) || call.expression !== parent) return undefined;
    const cb = call.arguments[0];
    if (!cb || !(ts.isArrowFunction(cb) || ts.isFunctionExpression(cb))) return undefined;
    const param = cb.parameters[0];
    if (!param) return [];
    if (ts.isObjectBindingPattern(param.name)) return namesOfPattern(param.name);
    if (!ts.isIdentifier(param.name)) return undefined;
    return namesOfBinding(param.name, cb);
  }
  if (ts.isElementAccessExpression(parent) && parent.expression === value && awaited) {
    return ts.isStringLiteral(parent.argumentExpression) ? [parent.argumentExpression.text] : undefined;
  }
  if (ts.isVariableDeclaration(parent) && parent.initializer === value && awaited) {
    if (ts.isObjectBindingPattern(parent.name)) return namesOfPattern(parent.name);
    if (ts.isIdentifier(parent.name)) return namesOfBinding(parent.name, scopeOf(parent));
  }
  return undefined;
}

/** The properties read of a name bound to a module, under `scope`; undefined if it is used otherwise. */
function namesOfBinding(name: ts.Identifier, scope: ts.Node): string[] | undefined {
  const names: string[] = [];
  for (const ref of referencesTo(name.text, scope, name)) {
    const parent = ref.parent;
    if (ts.isPropertyAccessExpression(parent) && parent.expression === ref) names.push(parent.name.text);
    else if (
      ts.isVariableDeclaration(parent) &&
      parent.initializer === ref &&
      ts.isObjectBindingPattern(parent.name)
    ) {
      const read = namesOfPattern(parent.name);
      if (!read) return undefined;
      names.push(...read);
    } else return undefined;
  }
  return names;
}

const isImportCall = (n: ts.Node): n is ts.CallExpression =>
  ts.isCallExpression(n) &&
  n.expression.kind === ts.SyntaxKind.ImportKeyword &&
  n.arguments.length === 1 &&
  ts.isStringLiteral(n.arguments[0] as ts.Expression);

/** A thunk: `const name = () => import('./x.js')`: its name and the module it loads. */
function thunkOf(call: ts.CallExpression): string | undefined {
  const arrow = looked(call).parent;
  if (!ts.isArrowFunction(arrow) || arrow.body !== looked(call)) return undefined;
  const declaration = arrow.parent;
  return ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name)
    ? declaration.name.text
    : undefined;
}

/** Each file parsed once per process (the check reads production alone, then with the tests). */
const parsed = new Map<string, ts.SourceFile>();
const parse = (file: string, text: string): ts.SourceFile => {
  let source = parsed.get(file);
  if (source?.text !== text) {
    const kind = /\.tsx$/.test(file) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    parsed.set(file, source);
  }
  return source;
};

/** Reads every module of `texts` (path -> source) and what each takes from the others. */
export function moduleUses(texts: Map<string, string>): ModuleUses {
  const files = new Set(texts.keys());
  const sources = new Map([...texts].map(([file, text]) => [file, parse(file, text)]));
  const exports = new Map([...sources].map(([file, source]) => [file, exportsOf(file, source, files)]));
  const taken = new Map<string, Taken>();
  const of = (file: string) => {
    let t = taken.get(file);
    if (!t) {
      t = { names: new Set(), all: false };
      taken.set(file, t);
    }
    return t;
  };
  const unreadable: ModuleUses['unreadable'] = [];
  const take = (target: string, names: string[] | undefined, at: ts.Node) => {
    const t = of(target);
    if (names) for (const n of names) t.names.add(n);
    else {
      t.all = true;
      const source = at.getSourceFile();
      const line = source.getLineAndCharacterOfPosition(at.getStart()).line + 1;
      unreadable.push({ place: `${source.fileName}:${line}`, target });
    }
  };

  // Thunks: file -> name -> the module it loads (exported ones are followed into their importers).
  const thunks = new Map<string, Map<string, string>>();
  for (const [file, source] of sources) {
    const visit = (n: ts.Node) => {
      if (isImportCall(n)) {
        const target = resolveSpecifier(file, (n.arguments[0] as ts.StringLiteral).text, files);
        const name = thunkOf(n);
        if (target && name) {
          const own = thunks.get(file) ?? new Map<string, string>();
          own.set(name, target);
          thunks.set(file, own);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }

  for (const [file, source] of sources) {
    // Thunks seen here by name: its own, and those it imports.
    const loaders = new Map(thunks.get(file) ?? []);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const target = resolveSpecifier(file, statement.moduleSpecifier.text, files);
      if (!target || target === file) continue;
      const clause = statement.importClause;
      if (!clause) continue;
      const t = of(target);
      if (clause.name) t.names.add('default');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) {
          const imported = (e.propertyName ?? e.name).text;
          t.names.add(imported);
          const loads = thunks.get(target)?.get(imported);
          if (loads) loaders.set(e.name.text, loads);
        }
      if (bindings && ts.isNamespaceImport(bindings))
        take(target, namesOfBinding(bindings.name, source), bindings);
    }
    const visit = (n: ts.Node) => {
      if (isImportCall(n)) {
        const target = resolveSpecifier(file, (n.arguments[0] as ts.StringLiteral).text, files);
        // A thunk's import() is read at the thunk's calls.
        if (target && target !== file && !thunkOf(n)) take(target, namesReadOf(n), n);
      } else if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.arguments.length === 0) {
        const target = loaders.get(n.expression.text);
        if (target && target !== file) take(target, namesReadOf(n), n);
      } else if (
        ts.isImportTypeNode(n) &&
        ts.isLiteralTypeNode(n.argument) &&
        ts.isStringLiteral(n.argument.literal)
      ) {
        // `typeof import('./x.js')['a']` or `import('./x.js').A` in a type.
        const target = resolveSpecifier(file, n.argument.literal.text, files);
        if (target && target !== file) {
          const indexed = n.parent;
          const names = n.qualifier
            ? [ts.isIdentifier(n.qualifier) ? n.qualifier.text : n.qualifier.left.getText()]
            : ts.isIndexedAccessTypeNode(indexed) &&
                ts.isLiteralTypeNode(indexed.indexType) &&
                ts.isStringLiteral(indexed.indexType.literal)
              ? [indexed.indexType.literal.text]
              : undefined;
          take(target, names, n);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }

  // Re-exports pass on what their importers take, until nothing more is passed.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, own] of exports) {
      const t = taken.get(file);
      if (!t) continue;
      const pass = (target: string, name: string) => {
        const to = of(target);
        if (name === '*') {
          if (!to.all) changed = to.all = true;
        } else if (!to.names.has(name)) {
          to.names.add(name);
          changed = true;
        }
      };
      for (const [exported, [target, imported]] of own.forwards)
        if (t.all || t.names.has(exported)) pass(target, imported);
      for (const target of own.stars) {
        for (const name of t.names) if (!own.names.has(name) && name !== 'default') pass(target, name);
        if (t.all) pass(target, '*');
      }
    }
  }
  return {
    taken,
    exported: new Map([...exports].map(([file, e]) => [file, [...e.names]])),
    unreadable,
  };
}
