import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One RADIUS core, and one store: read from the code itself (its imports), so that a copy of a
 * decision, or a DynamoDB call past the store, fails here before any review.
 *
 * - Only functions/store (and functions/core/ddb.ts, which makes the client) talks to DynamoDB:
 *   no other module of functions/ imports a DynamoDB package (a command, the marshaller) or the
 *   client.
 * - Each RADIUS rule is defined once and applied through the core: a login's rule
 *   (functions/radius/login.ts), a report's (accounting.ts), a router's (caller.ts), and the
 *   rules they apply (standing.ts, session-counters.ts, the replies of attributes.ts) are imported
 *   by the core only; every road that answers a router (the region's rows over the table, an
 *   edge during a cut over its replica) calls the same exchanges (exchange.ts).
 */

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.m?tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  from: string;
  names: string[];
  typeOnly: boolean;
}

const IMPORT = /^\s*import\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"]([^'"]+)['"]/gm;

/** Each module's imports: where from (a project module relative to the repo, else the package), and the names. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = m[3] as string;
    const from = spec.startsWith('.')
      ? relative('.', resolve(dirname(file), spec)).replace(/\.m?js$/, '.ts')
      : spec;
    const clause = m[2] ?? '';
    const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    const named = braces
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const typeOnly = Boolean(m[1]) || (named.length > 0 && named.every((n) => n.startsWith('type ')));
    return {
      from,
      typeOnly,
      names: named.filter((n) => !n.startsWith('type ')).map((n) => n.split(/\s+as\s+/)[0] as string),
    };
  });
}

const FILES = sources('functions').map((f) => relative('.', f));
const IMPORTS = new Map(FILES.map((f) => [f, importsOf(f)]));

/** The modules that import (a value, not a type) any of `names` from `module`. */
function importersOf(module: string, names?: readonly string[]): string[] {
  return FILES.filter((f) =>
    (IMPORTS.get(f) ?? []).some(
      (i) => i.from === module && !i.typeOnly && (!names || i.names.some((n) => names.includes(n))),
    ),
  ).sort();
}

describe('the store', () => {
  it('is the only part of functions/ that talks to DynamoDB (with the client setup of core/ddb.ts)', () => {
    const dynamo = /^@aws-sdk\/(client-dynamodb|lib-dynamodb|util-dynamodb)$/;
    const outside = FILES.filter((f) => !f.startsWith('functions/store/') && f !== 'functions/core/ddb.ts');
    const offenders = outside.flatMap((f) =>
      (IMPORTS.get(f) ?? [])
        .filter(
          (i) =>
            !i.typeOnly &&
            (dynamo.test(i.from) ||
              (i.from === 'functions/core/ddb.ts' && i.names.some((n) => n === 'ddb' || n === 'itemClient'))),
        )
        .map((i) => `${f} imports ${i.from}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('the RADIUS core', () => {
  it('defines each rule once: only the core imports the rules it applies', () => {
    expect({
      standing: importersOf('functions/radius/standing.ts', ['standing']),
      dataGrant: importersOf('functions/radius/standing.ts', ['dataGrant']),
      advance: importersOf('functions/radius/session-counters.ts', ['advance']),
      replies: importersOf('functions/radius/attributes.ts', ['acceptReply', 'passwordReply']),
      login: importersOf('functions/radius/login.ts'),
      account: importersOf('functions/radius/accounting.ts', ['account']),
      judgeCaller: importersOf('functions/radius/caller.ts', ['judgeCaller']),
      pppoe: importersOf('functions/radius/pppoe.ts', ['pppoeLogin', 'pppoeAccount']),
    }).toEqual({
      // The replica offers the codes that can still log in, and the portal tells a subscriber
      // what a code has left: the same standing, applied, not another.
      standing: [
        'functions/edge/replica.ts',
        'functions/portal/access.ts',
        'functions/portal/captive.ts',
        'functions/portal/remembered-devices.ts',
        'functions/radius/login.ts',
      ],
      dataGrant: ['functions/radius/login.ts'],
      advance: ['functions/radius/accounting.ts'],
      // A code's login and a PPPoE subscriber's: the core's two kinds of login.
      replies: ['functions/radius/login.ts', 'functions/radius/pppoe.ts'],
      login: ['functions/radius/exchange.ts'],
      account: ['functions/radius/exchange.ts'],
      judgeCaller: ['functions/radius/exchange.ts'],
      pppoe: ['functions/radius/exchange.ts'],
    });
  });

  it('is called the same way by every road that answers a router: the region over the table, an edge over its replica', () => {
    const exchanges = ['authorizeExchange', 'postAuthExchange', 'accountingExchange'];
    expect(importersOf('functions/radius/exchange.ts', exchanges)).toEqual([
      'functions/edge-service/offline.ts',
      'functions/radius/answers.ts',
    ]);
    // The edge's program reaches the RADIUS rules through the exchanges and its store only.
    const fromRadius = FILES.filter((f) => f.startsWith('functions/edge-service/')).flatMap((f) =>
      (IMPORTS.get(f) ?? [])
        .filter((i) => i.from.startsWith('functions/radius/') && !i.typeOnly)
        .map((i) => `${i.from} ${i.names.join(',')}`),
    );
    expect([...new Set(fromRadius)].sort()).toEqual([
      'functions/radius/attributes.ts normalizeCode',
      'functions/radius/attributes.ts requestAttributes',
      'functions/radius/exchange.ts accountingExchange,authorizeExchange,postAuthExchange',
      // The guess budgets of a cut: the region's gate over the edge's memory.
      'functions/radius/guesses.ts gateLogin',
      'functions/radius/settings.ts radiusSettings',
    ]);
  });
});
