// The pages only the local host serves, beside the API routes.

import { docsPages } from './docs-pages.js';
import type { LocalPage } from './local-page.js';
import { sandboxPages } from './sandbox.js';

/**
 * Pages that only the local host serves, beside the API routes: the API docs
 * (`/api/v1/openapi.json`, `/docs`) and the sandbox payment aggregator's pages. `npm start`, the
 * HTTP tests and the bench pass this list to `startServer`.
 */
export function localPages(): LocalPage[] {
  return [...docsPages(), ...sandboxPages()];
}
