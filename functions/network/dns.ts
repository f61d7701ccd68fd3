// The DNS sinkhole's state: reported by the sinkhole, read by operators.

import { clock } from '../core/clock.js';
import { validation } from '../core/errors.js';
import { type DnsStatus, reportDnsStatus } from '../store/dns-status.js';
import { networkSettings } from './settings.js';

/** The `last_update` of a sinkhole that never reported: the epoch, i.e. never. */
const NEVER = '1970-01-01T00:00:00.000Z';

/**
 * The status as the API answers it. Before any report: not known healthy, an empty blocklist,
 * the configured sinkhole and `last_update` at the epoch (the spec's field is a timestamp, so
 * "never" is one too); `checked_at` appears once the canary has checked the resolver.
 */
export function dnsStatusView(s: DnsStatus | undefined) {
  return {
    unbound_healthy: s?.unbound_healthy ?? false,
    blocklist_count: s?.blocklist_count ?? 0,
    sinkhole_ip: s?.sinkhole_ip ?? networkSettings().DNS_SINKHOLE_IP,
    last_update: s?.last_update ?? NEVER,
    ...(s?.checked_at ? { checked_at: s.checked_at } : {}),
  };
}

/** How far ahead of this clock a report may be dated (the DNS host's clock may drift a little). */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * Stores what the DNS host reports. A report dated in the future is refused (it would shadow
 * every later one); one older than the stored report changes nothing.
 */
export async function reportDns(report: {
  blocklist_count: number;
  sinkhole_ip: string;
  last_update: string;
}) {
  const at = Date.parse(report.last_update);
  if (at > clock.now() + MAX_CLOCK_SKEW_MS) {
    throw validation('Invalid body', [{ path: 'body.last_update', message: 'must not be in the future' }]);
  }
  return dnsStatusView(await reportDnsStatus({ ...report, last_update: new Date(at).toISOString() }));
}
