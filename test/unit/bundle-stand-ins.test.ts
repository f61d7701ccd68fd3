import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ESBUILD } from '../../lib/bundling.js';
import { defaultProvider } from '../../lib/lambda/credentials.js';
import { ReadableStream as LazyReadableStream } from '../../lib/lambda/lazy-web-streams.js';
import LruCache from '../../lib/lambda/lru-cache.js';
import { parse } from '../../lib/lambda/no-bowser.js';
import {
  EventStreamSerde,
  eventStreamSerdeProvider,
  resolveEventStreamSerdeConfig,
} from '../../lib/lambda/no-event-streams.js';
import standInProcess, { env, versions } from '../../lib/lambda/process.js';
import { functionEntries } from '../support/bundles.js';

const require = createRequire(import.meta.url);

describe('the LRU that stands in for mnemonist in the bundles', () => {
  it('drops the least recently used entry past its capacity', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('c', 3);
    expect(c.has('b')).toBe(false);
    expect([c.get('a'), c.get('c'), c.size]).toEqual([1, 3, 2]);
  });

  it('peek does not refresh an entry, set on an existing key does', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.peek('a')).toBe(1);
    c.set('c', 3); // a was least recent despite the peek
    expect(c.has('a')).toBe(false);
    c.set('b', 20);
    c.set('d', 4); // b was refreshed by its set: c goes
    expect([c.peek('b'), c.has('c'), c.peek('d')]).toEqual([20, false, 4]);
    c.clear();
    expect(c.size).toBe(0);
  });

  it('refuses a capacity that is not positive, as mnemonist does', () => {
    expect(() => new LruCache(0)).toThrow(/capacity/);
  });

  it('offers every method the SDK endpoint cache calls on it', () => {
    // If an SDK update calls another mnemonist method, this fails before a deploy does.
    const file = join(
      dirname(require.resolve('@aws-sdk/endpoint-cache/package.json')),
      'dist-es/EndpointCache.js',
    );
    const called = new Set([...readFileSync(file, 'utf8').matchAll(/this\.cache\.(\w+)/g)].map((m) => m[1]));
    expect(called.size).toBeGreaterThan(0);
    for (const method of called)
      expect(typeof Reflect.get(LruCache.prototype, method as string)).toBe('function');
  });
});

describe('the stand-ins for code a Lambda function never runs', () => {
  it('an event stream fails loudly rather than silently', () => {
    expect(() => new EventStreamSerde()).toThrow(/Event streams are not bundled/);
    // The Lambda client resolves its marshaller when made: left unset, nothing thrown then.
    expect(resolveEventStreamSerdeConfig({ region: 'x' })).toEqual({
      region: 'x',
      eventStreamMarshaller: undefined,
    });
    expect(() => eventStreamSerdeProvider()).toThrow(/Event streams are not bundled/);
  });

  it('the SDK loads event streams only through the one dynamic import the alias replaces', () => {
    const core = dirname(require.resolve('@smithy/core/package.json'));
    const protocol = readFileSync(join(core, 'dist-es/submodules/protocols/HttpProtocol.js'), 'utf8');
    expect(protocol).toContain('await import("@smithy/core/event-streams")');
  });

  it('the browser user-agent parser answers as for an unknown agent', () => {
    expect(parse('Mozilla/5.0')).toEqual({});
  });
});

describe('the credential provider that stands in for the SDK chain', () => {
  const keys = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;
  const withEnv = async <T>(values: Partial<Record<(typeof keys)[number], string>>, fn: () => Promise<T>) => {
    const saved = keys.map((k) => [k, process.env[k]] as const);
    for (const k of keys) delete process.env[k];
    Object.assign(process.env, values);
    try {
      return await fn();
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  };

  it('hands out the credentials Lambda puts in the environment', async () => {
    const creds = await withEnv(
      { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 's3cret', AWS_SESSION_TOKEN: 'tok' },
      () => defaultProvider()(),
    );
    expect(creds).toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 's3cret',
      sessionToken: 'tok',
    });
  });

  it('fails loudly, naming the environment, when they are missing', async () => {
    await expect(withEnv({}, () => defaultProvider()())).rejects.toThrow(/environment variable credentials/);
  });
});

describe('the built-ins that stand-ins replace in the bundles', () => {
  it('the web-streams stand-in constructs and recognises the real ReadableStream', async () => {
    const stream = new LazyReadableStream({
      start(c) {
        c.enqueue('x');
        c.close();
      },
    });
    expect(stream).toBeInstanceOf(NodeReadableStream);
    expect(stream instanceof LazyReadableStream).toBe(true);
    expect(new NodeReadableStream() instanceof LazyReadableStream).toBe(true);
    expect({} instanceof LazyReadableStream).toBe(false);
    const chunks: unknown[] = [];
    for await (const c of stream as unknown as AsyncIterable<unknown>) chunks.push(c);
    expect(chunks).toEqual(['x']);
  });

  it('the process stand-in hands out the real process', () => {
    expect(standInProcess).toBe(process);
    expect(env).toBe(process.env);
    expect(versions).toBe(process.versions);
  });

  it('in every function, only the code the stand-ins were written for imports those built-ins', async () => {
    // One build of every function, as deployed but for the two built-ins' aliases, which a plugin
    // applies instead: it resolves each import of them to the same stand-in and notes the file
    // that imported it. An SDK or middy update that adds an importer fails here (or, importing
    // another name, fails the build) before a deploy does. Split into shared chunks: each module
    // is printed once however many functions hold it, so the check costs one pass over the code,
    // not one per function.
    const root = resolve(import.meta.dirname, '../..');
    const entries = await functionEntries(root);
    expect(entries.length).toBeGreaterThan(30);
    const { 'node:stream/web': _web, 'node:process': _proc, ...others } = ESBUILD.alias;
    const importers = new Map<string, Set<string>>();
    const standIns: Plugin = {
      name: 'stand-ins-noted',
      setup(b) {
        b.onResolve({ filter: /^node:(stream\/web|process)$/ }, (args) => {
          const seen = importers.get(args.path) ?? new Set<string>();
          seen.add(args.importer.replace(/^.*node_modules\//, ''));
          importers.set(args.path, seen);
          return { path: ESBUILD.alias[args.path] as string };
        });
      },
    };
    const built = await build({
      entryPoints: entries.map((e) => ({ in: e.entry, out: e.name })),
      outdir: join(root, 'bench', '.out-stand-ins'),
      write: false,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: ESBUILD.format,
      target: ESBUILD.target,
      mainFields: ESBUILD.mainFields,
      banner: { js: ESBUILD.banner },
      alias: others,
      plugins: [standIns],
      external: ['radius'],
      metafile: true,
      logLevel: 'silent',
    });
    const noted = (mod: string) => [...(importers.get(mod) ?? [])].sort();
    expect(noted('node:stream/web')).toEqual(['@middy/core/index.js']);
    expect(noted('node:process')).toEqual([
      '@aws-sdk/core/dist-es/submodules/client/util-user-agent-node/defaultUserAgent.js',
      '@aws-sdk/core/dist-es/submodules/client/util-user-agent-node/getRuntimeUserAgentPair.js',
    ]);
    // Every function built, and no output (a function's or a chunk it shares) imports either built-in.
    // (A lazily imported module is an entry point of its own chunk too: each function is among them.)
    const entryPoints = new Set(Object.values(built.metafile?.outputs ?? {}).map((o) => o.entryPoint));
    expect(entries.filter((e) => !entryPoints.has(relative(process.cwd(), e.entry)))).toEqual([]);
    for (const out of built.outputFiles ?? []) {
      expect(out.text).not.toMatch(/["']node:stream\/web["']/);
      expect(out.text).not.toMatch(/["']node:process["']/);
    }
  }, 120_000);
});
