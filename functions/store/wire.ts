// Items and keys in DynamoDB's own form, as the document client would marshal them.

import { marshall } from '@aws-sdk/util-dynamodb';

/**
 * Items and keys in DynamoDB's own form, as the document client would marshal them (undefined
 * values left out): the item commands go through `itemClient`, whose middleware is resolved once
 * per command kind (functions/core/ddb.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: marshal's input is any plain object
export const wire = (value: Record<string, any>) => marshall(value, { removeUndefinedValues: true });
// biome-ignore lint/suspicious/noExplicitAny: a document client input (Key, Item, ExpressionAttributeValues)
export function wireInput<T extends Record<string, any>>(input: T): any {
  return {
    ...input,
    ...(input.Key ? { Key: wire(input.Key) } : {}),
    ...(input.Item ? { Item: wire(input.Item) } : {}),
    ...(input.ExpressionAttributeValues
      ? { ExpressionAttributeValues: wire(input.ExpressionAttributeValues) }
      : {}),
  };
}
