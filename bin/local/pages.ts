import { sandboxPages } from './sandbox.js';
import type { LocalPage } from './server.js';

/**
 * Pages that only the local host serves, beside the API routes: the sandbox payment
 * aggregator's pages, the API docs.
 */
export function localPages(): LocalPage[] {
  return [...sandboxPages()];
}
