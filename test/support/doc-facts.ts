/**
 * The facts the docs state about the code, read from the code itself, and the docs read as
 * sentences: what test/unit/docs-facts.test.ts compares. A fact that lives in a TypeScript type
 * only (a status, an auth level) is read from its declaration with TypeScript's parser.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { GATEWAY_NAMES } from '../../functions/billing/gateways/registry.js';
import { jobs } from '../../functions/jobs.js';
import { routes } from '../../functions/routes.js';
import { TABLE } from '../../functions/store/table.js';
import { streamConsumers } from '../../functions/streams.js';

/** The string literals of a union type alias (`type X = 'a' | 'b'`) declared in `file`. */
export function literalsOf(file: string, typeName: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement) || statement.name.text !== typeName) continue;
    const type = statement.type;
    const members = ts.isUnionTypeNode(type) ? type.types : [type];
    return members.flatMap((m) =>
      ts.isLiteralTypeNode(m) && ts.isStringLiteral(m.literal) ? [m.literal.text] : [],
    );
  }
  throw new Error(`no type ${typeName} in ${file}`);
}

/** Source files under `dir` with one of `extensions`. */
function filesUnder(dir: string, extensions: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesUnder(path, extensions);
    return extensions.test(name) ? [path] : [];
  });
}

/** What the code says. */
export const FACTS = {
  gsis: TABLE.indexes.map((i) => i.name as string),
  jobs: jobs.map((j) => j.name),
  consumers: streamConsumers.map((c) => c.name),
  gateways: [...GATEWAY_NAMES] as string[],
  authLevels: literalsOf('functions/routes.ts', 'AuthLevel'),
  /** The levels whose callers hold a session token (`sessionEndpoint`'s routes). */
  sessionLevels: literalsOf('functions/routes.ts', 'SessionLevel'),
  paymentStatuses: literalsOf('functions/store/payments.ts', 'PaymentStatus'),
  routes: routes.map((r) => ({ key: `${r.method} ${r.path}`, auth: r.auth as string })),
  errorCodes: [...readFileSync('functions/core/errors.ts', 'utf8').matchAll(/\b(ERR_[A-Z_]+)\b/g)].map(
    (m) => m[1] as string,
  ),
};

/**
 * Every upper-case name with an underscore the code, its deployment and its tools spell (a
 * setting, an environment variable, a secret, a constant): a name the docs give in backticks
 * that is not among them names nothing.
 */
export function namesInCode(): Set<string> {
  const files = ['functions', 'lib', 'bin', 'deploy', 'bench', 'test', '.ci'].flatMap((dir) =>
    filesUnder(dir, /\.(ts|tsx|mts|mjs|sh|conf|json|service|yml|yaml)$|^run$|^Dockerfile$|^[a-z-]+$/),
  );
  const names = new Set<string>();
  for (const file of [...files, 'package.json', 'cdk.json'])
    for (const m of readFileSync(file, 'utf8').matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g))
      names.add(m[0]);
  return names;
}

/** The docs a person who clones the repo reads: the README and docs/*.md. */
export const DOCS = [
  'README.md',
  ...readdirSync('docs').flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];

export interface Sentence {
  /** `file:line` where it starts (its paragraph's, list item's or table row's first line). */
  at: string;
  text: string;
}

/**
 * A doc's prose as sentences: each paragraph, list item and table row on its own (code blocks
 * left out), split after a full stop followed by a space. A sentence is where a list the docs
 * give is read whole.
 */
export function sentencesOf(file: string, text = readFileSync(file, 'utf8')): Sentence[] {
  const out: Sentence[] = [];
  const lines = text.split('\n');
  let block: { start: number; lines: string[] } | undefined;
  let fenced = false;
  const flush = () => {
    if (!block) return;
    const joined = block.lines.join(' ');
    for (const part of joined.split(/(?<=\.)\s+(?=[A-Z`(*"])/))
      out.push({ at: `${file}:${block.start + 1}`, text: part });
    block = undefined;
  };
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      flush();
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const item = /^\s*([-*]|\d+\.)\s/.test(line) || /^\s*\|/.test(line) || /^#/.test(line);
    if (line.trim() === '' || item) flush();
    if (line.trim() === '') return;
    if (!block) block = { start: i, lines: [] };
    block.lines.push(line.trim());
    // A table row or a heading is a block of its own.
    if (/^\s*\|/.test(line) || /^#/.test(line)) flush();
  });
  flush();
  return out;
}

/** The words in backticks of a sentence (`` `a` `` and `` `a | b` `` give a and b). */
export const backticked = (text: string): string[] =>
  [...text.matchAll(/`([^`]+)`/g)].flatMap((m) => (m[1] as string).split(/\s*\|\s*/).map((w) => w.trim()));
