import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { brandingKeys } from './branding.js';
import { nasItem, nasKeys } from './nas.js';
import { resellerKeys } from './resellers.js';
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
  allOf: (resellerId: string) => ({ pk: `RESELLER#${resellerId}`, skPrefix: 'SITE#' }),
};

export type CreateSiteResult = 'ok' | 'site_taken' | 'nas_taken' | 'no_vlan';

/**
 * Creates a site and claims its NAS id together, while the reseller holds the VLAN the site was
 * built for and is not releasing it.
 */
// Access: TransactWriteItems [Put RESELLER#<id>/SITE#<nnn> (not exists), Put NAS#<nas_id> (not exists),
// ConditionCheck RESELLER#<id>/PROFILE (vlan_id = :v, not releasing)].
export async function createSite(
  site: Site,
  vlanId: number,
  resellerName: string,
): Promise<CreateSiteResult> {
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
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: resellerKeys.profile(site.reseller_id),
              ConditionExpression: 'vlan_id = :v AND attribute_not_exists(releasing)',
              ExpressionAttributeValues: { ':v': vlanId },
            },
          },
        ],
      }),
    );
    return 'ok';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (reasons[0] === 'ConditionalCheckFailed') return 'site_taken';
    if (reasons[2] === 'ConditionalCheckFailed') return 'no_vlan';
    if (reasons[1] === 'ConditionalCheckFailed') return 'nas_taken';
    // Two requests for the same site at once: the loser sees a conflict, as if it came second.
    if (reasons.includes('TransactionConflict')) return 'site_taken';
    throw error;
  }
}

// Access: Query pk=RESELLER#<id> AND begins_with(sk, 'SITE#'), strongly consistent, in site number order.
export async function listSites(resellerId: string): Promise<Site[]> {
  const sites: Site[] = [];
  const { pk, skPrefix } = siteKeys.allOf(resellerId);
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': pk, ':s': skPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const { pk: _pk, sk, entity, ...site } = item;
      sites.push(site as Site);
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return sites;
}

/** Sites deleted per transaction (3 items each, within DynamoDB's 100). */
const SITES_PER_TRANSACTION = 30;

/** Deletes sites with their NAS ids and branding (a VLAN's release, before its own items). */
// Access: TransactWriteItems per 30 sites [Delete RESELLER#<id>/SITE#<nnn>, Delete NAS#<nas_id>, Delete BRANDING#<nas_id>].
export async function deleteSites(sites: readonly Site[]): Promise<void> {
  for (let i = 0; i < sites.length; i += SITES_PER_TRANSACTION) {
    const chunk = sites.slice(i, i + SITES_PER_TRANSACTION);
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: chunk.flatMap((s) =>
          [
            siteKeys.site(s.reseller_id, s.site_number),
            nasKeys.nas(s.nas_id),
            brandingKeys.branding(s.nas_id),
          ].map((Key) => ({ Delete: { TableName: tableName(), Key } })),
        ),
      }),
    );
  }
}
