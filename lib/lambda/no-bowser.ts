// Stands in for bowser, the browser user-agent parser the SDK's browser build would load, in the bundles.

/**
 * Stands in for `bowser`, the browser user-agent parser the SDK's browser build loads with a
 * dynamic `import()`. A Lambda function never runs that code path (the SDK reads `node:os`
 * instead), so the parser has nothing to parse: it answers as bowser does for an unknown agent.
 */
export const parse = (_userAgent: string): Record<string, never> => ({});
export default { parse };
