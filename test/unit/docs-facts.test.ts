import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_LINE } from '../support/bench-doc.js';
import { backticked, DOCS, FACTS, namesInCode, type Sentence, sentencesOf } from '../support/doc-facts.js';

// What the README and docs/ say about the code, against the code (test/support/doc-facts.ts
// reads both): the table's indexes, the jobs and stream consumers, the payment gateways, the auth
// levels, the payment statuses, the routes, the settings and error codes they name. Each check
// fails on a doc that contradicts the code, naming the file and line; the fix is the doc's.
// (Facts a doc may state as a subset, "CinetPay and FedaPay have no refund API", are not lists
// of all: only a sentence that reads as the whole list is held to all of it.)

const sentences: Sentence[] = DOCS.flatMap((file) => sentencesOf(file));
const where = (s: Sentence) => `${s.at}: ${s.text.slice(0, 160)}`;

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** How the docs write each gateway's name. */
const GATEWAY_WORDS: Record<string, RegExp> = {
  sandbox: /\bthe (local )?sandbox\b|`sandbox`|\bsandbox\.ts\b/i,
  http: /generic (`http` )?aggregator|`http`|\bhttp\.ts\b/i,
  cinetpay: /cinetpay/i,
  fedapay: /fedapay/i,
  wave: /\bwave\b/i,
};

describe('the docs state what the code is', () => {
  it('give the table as many GSIs as it has, and name only those', () => {
    const count = FACTS.gsis.length;
    const wrong = sentences.flatMap((s) => {
      const problems: string[] = [];
      // "four GSIs", "5 GSIs"
      for (const m of s.text.matchAll(/\b(\w+) (?:GSIs|global secondary indexes)\b/gi)) {
        const said = NUMBERS.indexOf((m[1] as string).toLowerCase());
        const n = said >= 0 ? said : Number(m[1]);
        if (Number.isInteger(n) && n !== count)
          problems.push(`${where(s)} (says ${m[1]}, the table has ${count})`);
      }
      // "`gsi1`..`gsi4`"
      for (const m of s.text.matchAll(/gsi1`?\s*(?:\.\.|–|to)\s*`?gsi(\d+)/g))
        if (Number(m[1]) !== count) problems.push(`${where(s)} (gsi1..gsi${m[1]}, the table has ${count})`);
      // An index the table does not have.
      for (const m of s.text.matchAll(/\bgsi(\d+)/g))
        if (!FACTS.gsis.includes(`gsi${m[1]}`))
          problems.push(`${where(s)} (gsi${m[1]} is no index of the table)`);
      // The table's keys listed (`pk`/`sk` then its indexes): all of them.
      if (/`pk`\s*\/\s*`sk`/.test(s.text)) {
        const named = FACTS.gsis.filter((g) => s.text.includes(g));
        if (named.length > 0 && named.length < count && !/`gsi1`\.\./.test(s.text))
          problems.push(`${where(s)} (lists ${named.join(', ')} of ${FACTS.gsis.join(', ')})`);
      }
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it('name every scheduled job and stream consumer, and list all of them where they list them', () => {
    const all = sentences.map((s) => s.text).join('\n');
    expect([...FACTS.jobs, ...FACTS.consumers].filter((name) => !all.includes(`\`${name}\``))).toEqual([]);
    const wrong = sentences.flatMap((s) => {
      if (!/\b(Today|Now|Currently)\b/.test(s.text)) return [];
      return [FACTS.jobs, FACTS.consumers].flatMap((table) => {
        const named = table.filter((name) => s.text.includes(name));
        return named.length > 0 && named.length < table.length
          ? [`${where(s)} (names ${named.join(', ')} of ${table.join(', ')})`]
          : [];
      });
    });
    expect(wrong).toEqual([]);
  });

  it('list every registered payment gateway where they list the gateways', () => {
    // Named in prose, or as a value (`paymentGateway=sandbox|http|...`).
    const names = (text: string) => {
      const values = new Set(backticked(text).map((w) => w.replace(/^.*=/, '')));
      return FACTS.gateways.filter((g) => (GATEWAY_WORDS[g] as RegExp).test(text) || values.has(g));
    };
    const wrong = sentences.flatMap((s) => {
      const named = names(s.text);
      // Three or more named: the list of the gateways, which names all of them (one left out of
      // what it says, "the sandbox has none", is named too).
      return named.length >= 3 && named.length < FACTS.gateways.length
        ? [`${where(s)} (names ${named.join(', ')} of ${FACTS.gateways.join(', ')})`]
        : [];
    });
    expect(wrong).toEqual([]);
  });

  it('list the auth levels whole, and the session levels whole', () => {
    const wrong = sentences.flatMap((s) => {
      const levels = new Set(backticked(s.text).filter((w) => FACTS.authLevels.includes(w)));
      const problems: string[] = [];
      // Five or more levels: the list of the levels, which is all of them.
      if (levels.size >= 5 && levels.size < FACTS.authLevels.length)
        problems.push(
          `${where(s)} (lacks ${FACTS.authLevels.filter((l) => !levels.has(l)).join(', ')} of the auth levels)`,
        );
      // The session levels (a token's holders): jwt, reseller and admin said, so all of them.
      const session = FACTS.sessionLevels.filter((l) => levels.has(l));
      if (
        ['jwt', 'reseller', 'admin'].every((l) => levels.has(l)) &&
        session.length < FACTS.sessionLevels.length
      )
        problems.push(
          `${where(s)} (lacks ${FACTS.sessionLevels.filter((l) => !levels.has(l)).join(', ')} of the session levels)`,
        );
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it('list every payment status where they list a payment’s statuses', () => {
    const wrong = sentences.flatMap((s) => {
      const words = backticked(s.text).filter((w) => /^[a-z_]+$/.test(w));
      const said = new Set(words.filter((w) => FACTS.paymentStatuses.includes(w)));
      // Pending, completed and another, and mostly statuses (not, say, a settlement's outcomes).
      const others = new Set(words.filter((w) => !said.has(w)));
      const isList =
        said.has('pending') && said.has('completed') && said.size >= 3 && others.size < said.size;
      return isList && said.size < FACTS.paymentStatuses.length
        ? [`${where(s)} (lacks ${FACTS.paymentStatuses.filter((x) => !said.has(x)).join(', ')})`]
        : [];
    });
    expect(wrong).toEqual([]);
  });

  it('name only routes the route table has, each under its own auth level', () => {
    const shape = (key: string) => key.replace(/\{[^}]*\}/g, '{}');
    const levels = new Map(FACTS.routes.map((r) => [shape(r.key), r.auth]));
    const wrong = sentences.flatMap((s) => {
      // The level a table row is about (decisions.md's "Who may call what"), if it is such a row.
      const rowLevel = /^\|\s*`([a-z]+)`/.exec(s.text)?.[1];
      const level = rowLevel && FACTS.authLevels.includes(rowLevel) ? rowLevel : undefined;
      return [
        ...s.text.matchAll(/\b(GET|POST|PUT|DELETE) (\/api\/v1\/(?:\{[^}\s]*\}|[^\s`'?),;|[{])*)/g),
      ].flatMap((m) => {
        const path = (m[2] as string).replace(/[.:]$/, '');
        // A pattern, not a route: `/api/v1/…`, `/edge/radius/*`.
        if (/[…*]/.test(path)) return [];
        // `{authorize,post-auth}`: one route each.
        const alternatives = /\{([^}]*,[^}]*)\}/.exec(path);
        const paths = alternatives
          ? (alternatives[1] as string).split(',').map((a) => path.replace(alternatives[0], a))
          : [path];
        return paths.flatMap((p) => {
          const key = shape(`${m[1]} ${p}`);
          const auth = levels.get(key);
          if (auth === undefined) return [`${where(s)} (${m[1]} ${p} is no route)`];
          return level && auth !== level
            ? [`${where(s)} (${m[1]} ${p} is \`${auth}\`, not \`${level}\`)`]
            : [];
        });
      });
    });
    expect(wrong).toEqual([]);
  });

  it('name only settings, variables and error codes the code has', () => {
    // Other programs' names the docs give: the AWS SDK's profile, FedaPay's SDK's constant.
    const theirs = ['AWS_PROFILE', 'DEFAULT_TOLERANCE'];
    const known = new Set([...namesInCode(), ...theirs]);
    const errors = new Set(FACTS.errorCodes);
    const wrong = sentences.flatMap((s) =>
      backticked(s.text)
        .flatMap((w) => [...w.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]))
        .filter((name) => (name.startsWith('ERR_') ? !errors.has(name) : !known.has(name)))
        .map((name) => `${where(s)} (${name} is nowhere in the code)`),
    );
    expect(wrong).toEqual([]);
  });
});

describe('runs of the bench', () => {
  it('are dated in docs/bench.md only', () => {
    const dated = sentences.flatMap((s) => {
      if (s.at.startsWith('docs/bench.md:')) return [];
      const signs = [
        // A date (an ISO timestamp's, `2026-03-01T08:00:00.000Z`, is a format, not a run).
        /\b20\d\d-\d\d-\d\d\b(?!T)/,
        /\b\d{1,2}:\d\d UTC\b/,
        /load average/i,
        /\b(last|this|that|earlier|previous) run\b[^.]{0,60}\d/i,
      ];
      // A message quoted ("... depuis 14:02 UTC") is an example, not a run.
      const prose = s.text.replace(/"[^"]*"/g, '""');
      return signs.some((sign) => sign.test(prose)) ? [where(s)] : [];
    });
    expect(dated).toEqual([]);
  });

  it('each section of docs/bench.md says when its run wrote it', () => {
    const page = readFileSync('docs/bench.md', 'utf8');
    const sections = page.split(/^(?=## )/m).slice(1);
    const undated = sections
      .filter((s) => !s.startsWith('## What the figures say'))
      .filter((s) => !RUN_LINE.test(s.split('\n')[2] ?? ''))
      .map((s) => s.split('\n')[0]);
    expect(undated).toEqual([]);
  });
});
