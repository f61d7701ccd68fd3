import { endpoint, json } from '../core/http.js';
import { listAlerts } from './alerts.js';
import { AlertsPage, AlertsQuery } from './schemas.js';

export const handler = endpoint(
  'GET /api/v1/alerts',
  { query: AlertsQuery, response: { status: 200, schema: AlertsPage } },
  async ({ principal, query }) => {
    if (!principal) throw new Error('auth middleware did not run');
    return json(200, await listAlerts(principal, query.status, query.page, query.page_size));
  },
);
