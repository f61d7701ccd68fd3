import { endpoint, json } from '../core/http.js';
import { listRules } from '../store/gateway-rules.js';
import { RulesQuery, RulesResponse } from './schemas.js';

export const handler = endpoint(
  'GET /api/v1/network/gateway/rules',
  { query: RulesQuery, response: { status: 200, schema: RulesResponse } },
  async ({ query }) => json(200, { items: await listRules(query.vlan) }),
);
