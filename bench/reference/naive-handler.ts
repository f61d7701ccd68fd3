import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The naive handler every function's import time is measured against (bench/bundle.ts): the
 * DynamoDB document client created at module level and a trivial handler, as a first Lambda
 * function is written, bundled by plain esbuild (none of lib/bundling.ts's options or stand-ins).
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => ({ statusCode: 200, body: typeof client.send });
