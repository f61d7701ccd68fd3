// GET /api/v1/network/gateway/rules: Gateway firewall rules, optionally of one VLAN

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { listRules } from '../store/gateway-rules.js';
import { RulesQuery, RulesResponse } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/network/gateway/rules',
  { query: RulesQuery, ok: RulesResponse },
  async ({ query }) => json(200, { items: await listRules(query.vlan) }),
);
