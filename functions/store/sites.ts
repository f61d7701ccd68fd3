import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { nasItem } from './nas.js';
import { cancellationReasons } from './table.js';

/** An extra site (hotspot) of a multi-site reseller, inside the reseller's VLAN. */
export interface Site {
  site_id: string;
  reseller_id: string;
  site_number: number;
  nas_id: string;
  ssid: string;
  ap_ip: string;
  city: string;
  latitude: number;
  longitude: number;
  created_at: string;
}

export const siteKeys = {
  site: (resellerId: string, siteNumber: number) => ({
    pk: `RESELLER#${resellerId}`,
    sk: `SITE#${String(siteNumber).padStart(3, '0')}`,
  }),
};

/**
 * Creates a site and claims its NAS id together; false when that site number (or NAS id) is
 * taken already.
 */
// Access: TransactWriteItems [Put RESELLER#<id>/SITE#<nnn> (not exists), Put NAS#<nas_id> (not exists)].
export async function createSite(site: Site, vlanId: number, resellerName: string): Promise<boolean> {
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...siteKeys.site(site.reseller_id, site.site_number), entity: 'site', ...site },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: nasItem({
                nas_id: site.nas_id,
                reseller_id: site.reseller_id,
                reseller_name: resellerName,
                vlan_id: vlanId,
                kind: 'site',
                site_number: site.site_number,
              }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.some((r) => r === 'ConditionalCheckFailed')) return false;
    throw error;
  }
}

// Access: Query pk=RESELLER#<id> AND begins_with(sk, 'SITE#'), in site number order.
export async function listSites(resellerId: string): Promise<Site[]> {
  const out = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': `RESELLER#${resellerId}`, ':s': 'SITE#' },
    }),
  );
  return (out.Items ?? []).map((item) => {
    const { pk, sk, entity, ...site } = item;
    return site as Site;
  });
}
