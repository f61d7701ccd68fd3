// The DNS sinkhole's reported status.

import { absentOrBelow, entity } from './entity.js';

/** The DNS sinkhole's status: reported by the DNS host (admin PUT) and by the canary's DNS check. */
export interface DnsStatus {
  unbound_healthy?: boolean;
  blocklist_count?: number;
  sinkhole_ip?: string;
  last_update?: string;
  checked_at?: string;
}

/** One item for the whole network: both reporters update their own attributes of it. */
const Status = entity<DnsStatus>('dns_status')({
  key: (_only: unknown) => ({ pk: 'DNS', sk: 'STATUS' }),
});

// Access: GetItem pk=DNS, sk=STATUS.
export const getDnsStatus = (): Promise<DnsStatus | undefined> => Status.get({});

/** The canary's verdict on the resolver; touches nothing the DNS host reports. */
// Access: UpdateItem pk=DNS, sk=STATUS SET unbound_healthy, checked_at.
export async function setUnboundHealthy(healthy: boolean, at: string): Promise<void> {
  await Status.upsert({}, { set: { unbound_healthy: healthy, checked_at: at } });
}

/** What the DNS host reports; an older report than the stored one is ignored. */
// Access: UpdateItem pk=DNS, sk=STATUS, condition: no last_update yet or an older one.
export async function reportDnsStatus(report: {
  blocklist_count: number;
  sinkhole_ip: string;
  last_update: string;
}): Promise<DnsStatus> {
  const stored = await Status.upsertReturning(
    {},
    {
      set: {
        blocklist_count: report.blocklist_count,
        sinkhole_ip: report.sinkhole_ip,
        last_update: report.last_update,
      },
    },
    absentOrBelow('last_update', report.last_update, true),
  );
  // Refused: a newer report is stored already, and is the answer.
  return stored ?? (await getDnsStatus()) ?? {};
}
