// `npm run edge:build`: the in-country edge's folder (installer, units, bundled service, FreeRADIUS configuration).

import { chmodSync, copyFileSync, cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * `npm run edge:build [DIR]`: the in-country edge's folder, dist/hotspot-edge/ by default, which is
 * all an edge machine needs (docs/outage.md, "Install"): install.sh and the two systemd units
 * (deploy/edge), the service bundled into one file for the Node that Debian 12 ships (18), and
 * the RADIUS front's FreeRADIUS configuration (deploy/freeradius, the same as the region's).
 * Copy the folder to the machine and run its install.sh.
 */
const repo = fileURLToPath(new URL('..', import.meta.url));

/** Debian 12's nodejs package: the edge runs on it, so the bundle's syntax stays within it. */
export const EDGE_NODE_TARGET = 'node18';

export async function buildEdge(outDir = join(repo, 'dist/hotspot-edge')): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(repo, 'functions/edge-service/main.ts')],
    bundle: true,
    platform: 'node',
    target: EDGE_NODE_TARGET,
    format: 'esm',
    outfile: join(outDir, 'edge.mjs'),
    // CommonJS dependencies inside an ES module bundle call require().
    banner: { js: "import{createRequire}from'module';const require=createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  for (const file of ['install.sh', 'hotspot-edge.service', 'hotspot-edge-radius.service'])
    copyFileSync(join(repo, 'deploy/edge', file), join(outDir, file));
  chmodSync(join(outDir, 'install.sh'), 0o755);
  // The container's build file is the region's only.
  cpSync(join(repo, 'deploy/freeradius'), join(outDir, 'freeradius'), {
    recursive: true,
    filter: (src) => !src.endsWith('/Dockerfile'),
  });
  return outDir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await buildEdge(process.argv[2]);
  process.stdout.write(`edge folder: ${out} (copy it to the edge machine and run its install.sh)\n`);
}
