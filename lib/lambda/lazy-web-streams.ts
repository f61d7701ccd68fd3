// Stands in for `node:stream/web` in the bundles, loaded only when a web stream is used.

/**
 * Stands in for `node:stream/web` in the bundles (esbuild alias in lib/bundling.ts). In them only
 * `@middy/core` imports it, for one `instanceof ReadableStream` check on the response-streaming
 * path, which no function takes; yet the static import makes Node load its whole web-streams
 * implementation at every cold start. This `ReadableStream` defers to the global one (the same
 * class, which Node loads on first access), so the check and a construction behave as before if
 * they ever run. Any other export imported from `node:stream/web` fails the build (esbuild: no
 * matching export), and test/unit/bundle-stand-ins.test.ts checks who imports it.
 */
export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }

  constructor(...args: ConstructorParameters<typeof globalThis.ReadableStream>) {
    // biome-ignore lint/correctness/noConstructorReturn: hands out the real stream
    return new globalThis.ReadableStream(...args);
  }
}
