// A VLAN's gateway firewall rules: created, deleted and listed in order.

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

export const Rule = entity<GatewayRule>('gateway_rule')({
  key: (r: Pick<GatewayRule, 'vlan' | 'order'>) => ({
    pk: `VLAN#${r.vlan}#RULES`,
    sk: `RULE#${pad(r.order)}`,
  }),
  indexes: {
    /** Every rule of the network, in VLAN then rule order. */
    all: { gsi: 'gsi1', pk: 'RULES', sk: '{vlan:5}#{order:5}' },
  },
});

/** The creation of a new VLAN's rules (network/ decides which), named, for the allocation transaction. */
export const rulesCreate = (rules: GatewayRule[]) =>
  Object.fromEntries(rules.map((r) => [`rule${r.order}`, Rule.tx.create(r)]));

/** The deletion of a VLAN's rules, named, for the release transaction. */
export const rulesDelete = (rules: Pick<GatewayRule, 'vlan' | 'order'>[]) =>
  Object.fromEntries(rules.map((r) => [`rule${r.order}`, Rule.tx.delete(r)]));

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
