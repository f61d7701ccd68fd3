// GET /api/v1/monitoring/overview: Active sessions, uptime, active alerts and SLA over the last 30 days

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { overview } from './dashboard.js';
import { NoQuery, OverviewSchema } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/monitoring/overview',
  { query: NoQuery, ok: OverviewSchema },
  async ({ principal }) => {
    return json(200, await overview(principal));
  },
);
