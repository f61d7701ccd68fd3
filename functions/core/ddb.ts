import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let client: DynamoDBDocumentClient | undefined;

/**
 * Every call is bounded so that a frozen DynamoDB answers 503 within the function's 10 s:
 * 1 s to connect (DYNAMODB_CONNECT_TIMEOUT_MS), 2 s for an answer (DYNAMODB_REQUEST_TIMEOUT_MS),
 * 3 attempts with the SDK's back-off (about 7 s at worst). DynamoDB answers in milliseconds; the
 * local Java engine under a test run's load may take seconds to answer, or to accept the dozens
 * of connections a parallel burst opens at once, so the local host and the tests give it more.
 */
function bounds() {
  const requestTimeout = Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? 2000);
  const connectionTimeout = Number(process.env.DYNAMODB_CONNECT_TIMEOUT_MS ?? 1000);
  return {
    maxAttempts: 3,
    requestHandler: { connectionTimeout, requestTimeout, throwOnRequestTimeout: true },
  };
}

/**
 * The DynamoDB document client, created once per container. `DYNAMODB_ENDPOINT` points it at
 * DynamoDB Local; in AWS the SDK's defaults apply.
 */
export function ddb(): DynamoDBDocumentClient {
  if (!client) {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    const base = new DynamoDBClient(
      endpoint
        ? {
            endpoint,
            region: process.env.AWS_REGION ?? 'local',
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            ...bounds(),
          }
        : bounds(),
    );
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return client;
}

/** Replaces the client (tests wrap it with fault-injecting or counting middleware). */
export function setDdb(next: DynamoDBDocumentClient | undefined): void {
  client = next;
}

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}
