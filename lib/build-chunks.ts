// Builds the lazy chunks beside a bundle, as the CDK's bundling runs it after esbuild.

/**
 * `node --import tsx lib/build-chunks.ts <dir>`: builds the lazy chunks the bundles in `dir`
 * import (lib/lazy-chunks.ts). The CDK runs it after bundling each function.
 */
import { ESBUILD } from './bundling.js';
import { buildChunks } from './lazy-chunks.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: build-chunks <bundle folder>');
await buildChunks(dir, ESBUILD);
