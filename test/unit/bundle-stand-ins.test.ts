import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import LruCache from '../../lib/lambda/lru-cache.js';
import { parse } from '../../lib/lambda/no-bowser.js';
import { EventStreamSerde, eventStreamSerdeProvider } from '../../lib/lambda/no-event-streams.js';

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
