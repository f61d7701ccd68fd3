// GET /api/v1/alerts: List alerts (a reseller sees its own sites')

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { listAlerts } from './alerts.js';
import { AlertsPage, AlertsQuery } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/alerts',
  { query: AlertsQuery, ok: AlertsPage },
  async ({ principal, query }) => {
    return json(200, await listAlerts(principal, query.status, query.page, query.page_size));
  },
);
