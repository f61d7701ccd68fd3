// GET /api/v1/agents: A reseller's agents with their float, stock, sales, commission and cash owed

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { agentsOf } from './agents.js';
import { AgentsQuery, AgentsResponse } from './schemas.js';

/** A reseller's agents and the balance of each (an admin names the reseller). */
export const handler = sessionEndpoint(
  'GET /api/v1/agents',
  { query: AgentsQuery, ok: AgentsResponse },
  async ({ query, principal }) => json(200, await agentsOf(principal, query.reseller_id)),
);
