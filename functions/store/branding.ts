import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { type NasRecord, nasKeys } from './nas.js';
import { cancellationReasons } from './table.js';

/** What a reseller set for a hotspot's captive portal; missing fields take the defaults. */
export interface BrandingFields {
  logo_url?: string;
  primary_color?: string;
  secondary_color?: string;
  banner_rotation_seconds?: number;
  custom_css?: string;
  updated_at?: string;
}

export const brandingKeys = {
  branding: (nasId: string) => ({ pk: `BRANDING#${nasId}`, sk: 'BRANDING' }),
};

const strip = (i: Record<string, unknown>) => {
  const { pk, sk, entity, gsi1pk, gsi1sk, ...rest } = i;
  return rest;
};

/** The NAS record and the saved branding of a hotspot, in one round trip. */
// Access: BatchGetItem pk=NAS#<nas_id> and pk=BRANDING#<nas_id> (consistent on request).
export async function readBranding(
  nasId: string,
  options: { consistent?: boolean } = {},
): Promise<{ nas?: NasRecord; saved?: BrandingFields }> {
  const nasKey = nasKeys.nas(nasId);
  const out = await ddb().send(
    new BatchGetCommand({
      RequestItems: {
        [tableName()]: {
          Keys: [nasKey, brandingKeys.branding(nasId)],
          ...(options.consistent ? { ConsistentRead: true } : {}),
        },
      },
    }),
  );
  if (Object.keys(out.UnprocessedKeys ?? {}).length) {
    const error = new Error('BatchGetItem left keys unprocessed');
    error.name = 'ThrottlingException';
    throw error;
  }
  const items = out.Responses?.[tableName()] ?? [];
  const nas = items.find((i) => i.pk === nasKey.pk);
  const saved = items.find((i) => i.pk !== nasKey.pk);
  return {
    ...(nas ? { nas: strip(nas) as unknown as NasRecord } : {}),
    ...(saved ? { saved: strip(saved) as BrandingFields } : {}),
  };
}

/**
 * Saves the fields given, leaving the others as they were, while the NAS id still belongs to
 * the reseller: a hotspot released meanwhile gets no branding that a later owner of the same
 * NAS id would inherit. False when it does not.
 */
// Access: TransactWriteItems [ConditionCheck NAS#<nas_id> (reseller_id = :r), Update BRANDING#<nas_id> SET <given fields>].
export async function saveBranding(
  nasId: string,
  resellerId: string,
  fields: BrandingFields,
): Promise<boolean> {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: nasKeys.nas(nasId),
              ConditionExpression: 'reseller_id = :r',
              ExpressionAttributeValues: { ':r': resellerId },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: brandingKeys.branding(nasId),
              UpdateExpression: `SET entity = :entity, ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
              ExpressionAttributeNames: Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
              ExpressionAttributeValues: {
                ':entity': 'branding',
                ...Object.fromEntries(entries.map(([k, v]) => [`:${k}`, v])),
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
