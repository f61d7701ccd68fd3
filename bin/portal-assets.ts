// `npm run portal`: the captive portal's script and style built into functions/portal/assets.generated.ts.

/**
 * `npx tsx bin/portal-assets.ts`: builds the captive portal's script, stylesheet and default logo from
 * portal/ (esbuild, minified) and writes them, with content-hashed names, into
 * functions/portal/assets.generated.ts: the portal's Lambdas carry them in their bundle, and the
 * local server serves the same module. A test fails while the committed module is stale.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { assetsModule, CSS, JS, root, TARGET } from './assets-module.js';

export const GENERATED = root('functions/portal/assets.generated.ts');

async function bundle(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [root(entry)],
    bundle: true,
    minify: true,
    write: false,
    format: entry.endsWith('.ts') ? 'iife' : undefined,
    target: TARGET,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  return out.outputFiles[0]?.text ?? '';
}

const hashed = (base: string, ext: string, text: string) =>
  `${base}.${createHash('sha256').update(text).digest('base64url').slice(0, 12)}.${ext}`;

/** The text of functions/portal/assets.generated.ts for the current sources. */
export async function portalAssetsModule(): Promise<string> {
  const js = await bundle('portal/portal.ts');
  const css = await bundle('portal/portal.css');
  const script = hashed('portal', 'js', js);
  const style = hashed('portal', 'css', css);
  // The logo of a hotspot whose reseller set none, from the portal's own origin (no third-party
  // host): a fixed name, as the branding's default names it (functions/network/settings.ts).
  const logo = readFileSync(root('portal/logo.svg'), 'utf8').trim();
  return assetsModule({
    command: 'npx tsx bin/portal-assets.ts',
    sources: 'portal/',
    prefix: 'PORTAL',
    script,
    style,
    assets: [
      { name: script, type: JS, text: js },
      { name: style, type: CSS, text: css },
      { name: 'logo.svg', type: 'image/svg+xml', text: logo },
    ],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await portalAssetsModule();
  writeFileSync(GENERATED, text);
  process.stdout.write(`functions/portal/assets.generated.ts: ${text.length} characters\n`);
}
