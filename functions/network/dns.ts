import type { DnsStatus } from '../store/dns-status.js';
import { networkSettings } from './settings.js';

/** Before any report: not known healthy, empty blocklist, the configured sinkhole, no update yet. */
export function dnsStatusView(s: DnsStatus | undefined) {
  return {
    unbound_healthy: s?.unbound_healthy ?? false,
    blocklist_count: s?.blocklist_count ?? 0,
    sinkhole_ip: s?.sinkhole_ip ?? networkSettings().DNS_SINKHOLE_IP,
    last_update: s?.last_update ?? null,
    checked_at: s?.checked_at ?? null,
  };
}
