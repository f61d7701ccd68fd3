// The firewall rules a new VLAN starts with, isolation first.

import { randomUUID } from 'node:crypto';
import type { GatewayRule } from '../store/gateway-rules.js';
import { subnetOf } from './naming.js';

/**
 * The firewall rules a new VLAN starts with, isolation first: network policy, written here and
 * stored by the allocation (functions/store/vlans.ts). A release deletes the same rules, by their
 * VLAN and order.
 */
export function defaultRules(vlan: number): GatewayRule[] {
  const subnet = subnetOf(vlan);
  const rule = (order: number, rule_type: GatewayRule['rule_type'], description: string): GatewayRule => ({
    id: randomUUID(),
    vlan,
    order,
    rule_type,
    description,
    active: true,
  });
  return [
    rule(1, 'DENY_DEFAULT', `Isolation: drop all traffic between ${subnet} and every other VLAN`),
    rule(2, 'ALLOW_DNS_SINKHOLE', `Allow DNS (udp/tcp 53) from ${subnet} to the sinkhole resolver only`),
    rule(
      3,
      'ALLOW_INTERNET',
      `Allow subscribers of ${subnet} with a valid session out to the internet (NAT)`,
    ),
  ];
}
