// GET /api/v1/canary/status: Latest canary run: the five checks, failure streak and overall status

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { canaryStatus } from './dashboard.js';
import { CanaryStatusSchema, NoQuery } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/canary/status',
  { query: NoQuery, ok: CanaryStatusSchema },
  async () => json(200, await canaryStatus()),
);
