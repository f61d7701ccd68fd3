import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { nasItem } from '../../functions/store/nas.js';

/** Records a hotspot (NAS id) of a reseller, with the network area's own item builder. */
export async function giveSite(resellerId: string, nasId: string): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: nasItem({
        nas_id: nasId,
        reseller_id: resellerId,
        reseller_name: 'Test',
        vlan_id: 10,
        kind: 'vlan',
      }),
    }),
  );
}
