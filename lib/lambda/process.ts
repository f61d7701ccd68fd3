// Stands in for `node:process` in the bundles: the global process, without the module's load.

/**
 * Stands in for `node:process` in the bundles (esbuild alias in lib/bundling.ts): the same
 * `process` object, without the cost of Node building the module namespace of the built-in
 * (which reads every property of `process`, and so loads the lazy ones, `process.report` among
 * them: about 2 ms at every cold start). In the bundles only the SDK's user-agent code imports it
 * (`env`, `versions`). A bundle that imports another name from `node:process` fails to build
 * (esbuild: no matching export); test/unit/bundle-stand-ins.test.ts checks the names.
 */
const proc = globalThis.process;
export default proc;
export const env = proc.env;
export const versions = proc.versions;
