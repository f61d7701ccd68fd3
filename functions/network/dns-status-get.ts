// GET /api/v1/network/dns/status: DNS sinkhole status

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { getDnsStatus } from '../store/dns-status.js';
import { dnsStatusView } from './dns.js';
import { DnsStatusResponse } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/network/dns/status',
  { ok: DnsStatusResponse },
  async () => json(200, dnsStatusView(await getDnsStatus())),
);
