import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { queryAll } from './table.js';

/**
 * A NAS identifier (the RADIUS NAS-Identifier of a hotspot): unique across the network, claimed
 * by a conditional put when a VLAN or a site is created. Other areas read it to find the
 * reseller behind a hotspot (payments, alerts, branding).
 */
export interface NasRecord {
  nas_id: string;
  reseller_id: string;
  reseller_name: string;
  vlan_id: number;
  kind: 'vlan' | 'site';
  site_number?: number;
}

export const nasKeys = {
  nas: (nasId: string) => ({ pk: `NAS#${nasId}`, sk: 'NAS' }),
  /** A reseller's NAS ids, through gsi1. */
  byReseller: (resellerId: string, nasId: string) => ({
    gsi1pk: `RESELLER#${resellerId}#NAS`,
    gsi1sk: nasId,
  }),
};

/** The item that claims a NAS id (for a transaction's conditional Put). */
export function nasItem(r: NasRecord): Record<string, unknown> {
  return { ...nasKeys.nas(r.nas_id), ...nasKeys.byReseller(r.reseller_id, r.nas_id), entity: 'nas', ...r };
}

function fromItem(item: Record<string, unknown>): NasRecord {
  return {
    nas_id: item.nas_id as string,
    reseller_id: item.reseller_id as string,
    reseller_name: item.reseller_name as string,
    vlan_id: item.vlan_id as number,
    kind: item.kind as 'vlan' | 'site',
    ...(typeof item.site_number === 'number' ? { site_number: item.site_number } : {}),
  };
}

// Access: GetItem pk=NAS#<nas_id>, sk=NAS.
export async function getNas(nasId: string): Promise<NasRecord | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: nasKeys.nas(nasId) }));
  return out.Item ? fromItem(out.Item) : undefined;
}

// Access: Query gsi1 gsi1pk=RESELLER#<id>#NAS (the VLAN's NAS id and its sites').
export async function listNasIdsOfReseller(resellerId: string): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': `RESELLER#${resellerId}#NAS` },
  });
  return items.map((i) => i.nas_id as string);
}
