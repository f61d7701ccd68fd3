import { fileURLToPath } from 'node:url';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How every function is bundled: ESM, minified, for Node 22, with the AWS SDK v3 inside the
 * bundle (a pinned, tested SDK rather than whatever the runtime ships). `npm run bench` bundles
 * with these same options, so its sizes are the deployed sizes.
 */
export const ESBUILD = {
  format: 'esm' as const,
  target: 'node22',
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  // ESM bundles still meet CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  // Lambda's credentials are in the environment: the SDK's node provider chain is replaced.
  alias: {
    '@aws-sdk/credential-provider-node': fileURLToPath(new URL('./lambda/credentials.ts', import.meta.url)),
    'source-map-js': fileURLToPath(new URL('./lambda/no-source-maps.ts', import.meta.url)),
  },
};

export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: ESBUILD.target,
  minify: ESBUILD.minify,
  sourceMap: ESBUILD.sourcemap,
  mainFields: ESBUILD.mainFields,
  banner: ESBUILD.banner,
  esbuildArgs: {
    '--alias:@aws-sdk/credential-provider-node': ESBUILD.alias['@aws-sdk/credential-provider-node'],
    '--alias:source-map-js': ESBUILD.alias['source-map-js'],
  },
  externalModules: [],
  // Local esbuild (a devDependency): no Docker needed to synth or deploy.
  forceDockerBundling: false,
};
