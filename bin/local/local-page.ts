// A page of the local host that is not an API route.

import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A page of the local host that is not an API route (the sandbox aggregator, the API docs). Its
 * own module so that the pages and the server that serves them import it without importing
 * each other: the pages are listed in pages.ts, and the server takes what it is given.
 */
export interface LocalPage {
  method: 'GET' | 'POST';
  /** Exact path, or a prefix when it ends with `/`. */
  path: string;
  handle: (req: IncomingMessage, res: ServerResponse, body: string, url: URL) => Promise<void>;
}
