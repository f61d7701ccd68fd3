// PUT /api/v1/network/dns/status: Report the DNS sinkhole's blocklist (the DNS host)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { reportDns } from './dns.js';
import { DnsReportBody, DnsStatusResponse } from './schemas.js';

/** The DNS host reports its blocklist; a report older than the stored one changes nothing. */
export const handler = sessionEndpoint(
  'PUT /api/v1/network/dns/status',
  { body: DnsReportBody, ok: DnsStatusResponse },
  async ({ body }) => json(200, await reportDns(body)),
);
