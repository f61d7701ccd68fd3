import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/** The DNS sinkhole's status: reported by the DNS host (admin PUT) and by the canary's DNS check. */
export interface DnsStatus {
  unbound_healthy?: boolean;
  blocklist_count?: number;
  sinkhole_ip?: string;
  last_update?: string;
  checked_at?: string;
}

const keys = { status: () => ({ pk: 'DNS', sk: 'STATUS' }) };

// Access: GetItem pk=DNS, sk=STATUS.
export async function getDnsStatus(): Promise<DnsStatus | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: keys.status() }));
  if (!out.Item) return undefined;
  const { pk, sk, entity, ...rest } = out.Item;
  return rest as DnsStatus;
}

/** The canary's verdict on the resolver; touches nothing the DNS host reports. */
// Access: UpdateItem pk=DNS, sk=STATUS SET unbound_healthy, checked_at.
export async function setUnboundHealthy(healthy: boolean, at: string): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.status(),
      UpdateExpression: 'SET unbound_healthy = :h, checked_at = :at, entity = :e',
      ExpressionAttributeValues: { ':h': healthy, ':at': at, ':e': 'dns_status' },
    }),
  );
}

/** What the DNS host reports; an older report than the stored one is ignored. */
// Access: UpdateItem pk=DNS, sk=STATUS, condition: no last_update yet or an older one.
export async function reportDnsStatus(report: {
  blocklist_count: number;
  sinkhole_ip: string;
  last_update: string;
}): Promise<DnsStatus> {
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.status(),
        UpdateExpression: 'SET blocklist_count = :c, sinkhole_ip = :ip, last_update = :u, entity = :e',
        ConditionExpression: 'attribute_not_exists(last_update) OR last_update <= :u',
        ExpressionAttributeValues: {
          ':c': report.blocklist_count,
          ':ip': report.sinkhole_ip,
          ':u': report.last_update,
          ':e': 'dns_status',
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const { pk, sk, entity, ...rest } = out.Attributes ?? {};
    return rest as DnsStatus;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
      return (await getDnsStatus()) ?? {};
    }
    throw error;
  }
}
