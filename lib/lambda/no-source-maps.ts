// Stands in for source-map-js in the bundles, as postcss's own browser build does.

/**
 * Stands in for `source-map-js` in the deployed bundles, as postcss's own browser build does:
 * the custom CSS check never reads or writes source maps, and without the module postcss skips
 * them entirely (about 30 KB less, and no reading of a map a CSS comment names).
 */
export const SourceMapConsumer = undefined;
export const SourceMapGenerator = undefined;
