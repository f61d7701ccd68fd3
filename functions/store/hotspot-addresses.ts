// The public addresses registered routers send RADIUS from, noted at most hourly and read by the OTP budgets.

import { entity } from './entity.js';

/**
 * The public addresses registered routers send RADIUS from (`Hotspot-NAS-IP`, which FreeRADIUS
 * sets from the packet's source): a hotspot's address, behind which its subscribers reach the
 * portal and ask for SMS codes. A UDP router's address is its registration's; a RadSec router's
 * is known only this way. Recorded by authorize at most once an hour per router and address,
 * kept a day (TTL) after it was last seen. Keyed by the address as budgets key it
 * (`addressKey`: an IPv4 address, an IPv6 /64), one item per router there.
 */
export interface SeenAddress {
  address: string;
  router_id: string;
  /** When a request of the router last came from this address (ISO). */
  seen_at: string;
}

/** Seen again after this long, the record is written anew (once an hour per router at most). */
export const SEEN_REFRESH_MS = 3_600_000;
const KEEP_S = 24 * 3600;

export const SeenAddressEntity = entity<SeenAddress>('router_seen_address')({
  key: (a: Pick<SeenAddress, 'address' | 'router_id'>) => ({
    pk: `ROUTERSEEN#${a.address}`,
    sk: `ROUTER#${a.router_id}`,
  }),
  ttl: (a) => Math.floor(Date.parse(a.seen_at) / 1000) + KEEP_S,
});

/** Records that a router was seen at an address now. */
// Access: PutItem pk=ROUTERSEEN#<address> sk=ROUTER#<router_id>.
export const noteSeenAddress = (a: SeenAddress): Promise<boolean> => SeenAddressEntity.put(a);

/** The routers seen at an address within the last day (TTL deletes late: the time is checked). */
// Access: Query pk=ROUTERSEEN#<address>.
export async function routersSeenAt(address: string, nowMs: number): Promise<string[]> {
  const items = await SeenAddressEntity.queryAll({
    pk: SeenAddressEntity.key({ address, router_id: '' }).pk,
  });
  return items.filter((a) => Date.parse(a.seen_at) > nowMs - KEEP_S * 1000).map((a) => a.router_id);
}
