import { randomUUID } from 'node:crypto';
import { subnetOf } from '../network/naming.js';
import { entity } from './entity.js';

export interface GatewayRule {
  id: string;
  vlan: number;
  /** Position in the VLAN's rule list (1 first). */
  order: number;
  rule_type: 'DENY_DEFAULT' | 'ALLOW_DNS_SINKHOLE' | 'ALLOW_INTERNET';
  description: string;
  active: boolean;
}

const pad = (n: number) => String(n).padStart(5, '0');

export const Rule = entity<GatewayRule>()({
  name: 'gateway_rule',
  key: (r: Pick<GatewayRule, 'vlan' | 'order'>) => ({
    pk: `VLAN#${r.vlan}#RULES`,
    sk: `RULE#${pad(r.order)}`,
  }),
  indexes: {
    /** Every rule of the network, in VLAN then rule order. */
    all: {
      gsi: 'gsi1',
      composite: ['vlan', 'order'],
      pk: (_all: unknown) => 'RULES',
      sk: (r: GatewayRule) => `${pad(r.vlan)}#${pad(r.order)}`,
    },
  },
});

/** The rules a new VLAN starts with, isolation first. */
function defaultRules(vlan: number): GatewayRule[] {
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

/** The creation of a new VLAN's default rules, named, for the allocation transaction. */
export const defaultRulesCreate = (vlan: number) =>
  Object.fromEntries(defaultRules(vlan).map((r) => [`rule${r.order}`, Rule.tx.create(r)]));

/** The deletion of a VLAN's default rules, named, for the release transaction. */
export const defaultRulesDelete = (vlan: number) =>
  Object.fromEntries(defaultRules(vlan).map((r) => [`rule${r.order}`, Rule.tx.delete(r)]));

const publicRule = ({ order, ...rule }: GatewayRule) => rule;

/** The rules of one VLAN, or of the whole network. */
// Access: Query pk=VLAN#<v>#RULES (one VLAN), or Query all (gsi1) gsi1pk=RULES (all, in VLAN order).
export async function listRules(vlan?: number): Promise<Omit<GatewayRule, 'order'>[]> {
  const items =
    vlan === undefined
      ? await Rule.queryIndexAll('all', {})
      : await Rule.queryAll({ pk: Rule.key({ vlan, order: 0 }).pk });
  return items.map(publicRule);
}
