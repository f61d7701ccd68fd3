// Powertools Metrics as a lazy chunk, loaded by a function's first count.

import { Metrics } from '@aws-lambda-powertools/metrics';

/**
 * Powertools Metrics, as a lazy chunk (lib/lazy-chunks.ts): a file of its own beside the bundles
 * of the functions that count a business metric, loaded by their first count
 * (functions/core/metrics.ts), so that their start does not compile it (12 KB of each bundle).
 */
export const metrics = new Metrics({
  namespace: 'HotspotPlatform',
  serviceName: 'hotspot-api',
  // Cells, and a cell's stages, share an account's namespace: each count carries its cell and
  // its stage, and each cell's alarms read only its own (lib/observability.ts, ourDimensions).
  defaultDimensions: {
    ...(process.env.CELL_ID ? { cell: process.env.CELL_ID } : {}),
    ...(process.env.STAGE ? { stage: process.env.STAGE } : {}),
  },
});
