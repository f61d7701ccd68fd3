import { randomUUID } from 'node:crypto';
import { subnetOf } from '../network/naming.js';
import { queryAll } from './table.js';

export interface GatewayRule {
  id: string;
  vlan: number;
  rule_type: 'DENY_DEFAULT' | 'ALLOW_DNS_SINKHOLE' | 'ALLOW_INTERNET';
  description: string;
  active: boolean;
}

const pad = (n: number) => String(n).padStart(5, '0');

export const ruleKeys = {
  rule: (vlan: number, order: number) => ({ pk: `VLAN#${vlan}#RULES`, sk: `RULE#${pad(order)}` }),
  /** Every rule of the network, in VLAN then rule order, through gsi1. */
  all: (vlan: number, order: number) => ({ gsi1pk: 'RULES', gsi1sk: `${pad(vlan)}#${pad(order)}` }),
};

/** The rules a new VLAN starts with, isolation first. */
function defaultRules(vlan: number): Pick<GatewayRule, 'rule_type' | 'description'>[] {
  const subnet = subnetOf(vlan);
  return [
    {
      rule_type: 'DENY_DEFAULT',
      description: `Isolation: drop all traffic between ${subnet} and every other VLAN`,
    },
    {
      rule_type: 'ALLOW_DNS_SINKHOLE',
      description: `Allow DNS (udp/tcp 53) from ${subnet} to the sinkhole resolver only`,
    },
    {
      rule_type: 'ALLOW_INTERNET',
      description: `Allow subscribers of ${subnet} with a valid session out to the internet (NAT)`,
    },
  ];
}

/** The keys of a VLAN's default rules (its release deletes them). */
export const defaultRuleKeys = (vlan: number): { pk: string; sk: string }[] =>
  defaultRules(vlan).map((_, i) => ruleKeys.rule(vlan, i + 1));

/** The items of a new VLAN's default rules, for the allocation transaction. */
export function defaultRuleItems(vlan: number): Record<string, unknown>[] {
  return defaultRules(vlan).map((r, i) => ({
    ...ruleKeys.rule(vlan, i + 1),
    ...ruleKeys.all(vlan, i + 1),
    entity: 'gateway_rule',
    id: randomUUID(),
    vlan,
    ...r,
    active: true,
  }));
}

const fromItem = (item: Record<string, unknown>): GatewayRule => ({
  id: item.id as string,
  vlan: item.vlan as number,
  rule_type: item.rule_type as GatewayRule['rule_type'],
  description: item.description as string,
  active: item.active as boolean,
});

/** The rules of one VLAN, or of the whole network. */
// Access: Query pk=VLAN#<v>#RULES (one VLAN), or Query gsi1 gsi1pk=RULES (all, in VLAN order).
export async function listRules(vlan?: number): Promise<GatewayRule[]> {
  const items = await queryAll(
    vlan === undefined
      ? {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'RULES' },
        }
      : { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': ruleKeys.rule(vlan, 0).pk } },
  );
  return items.map(fromItem);
}
