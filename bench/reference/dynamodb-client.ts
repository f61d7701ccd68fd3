import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Reference for the import ratio: the DynamoDB document client alone, built as functions/core/ddb.ts
 * builds it, with the functions' own bundling. Every function carries it; its ratio is the floor
 * the rest of a function's code adds to.
 */
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
