/**
 * The single table's shape, shared by the CDK stack and the local server so that both create
 * the same table. Every entity declares its keys on these generic names (functions/store/
 * entity.ts): `pk`/`sk`, two overloaded indexes, an `entity` attribute on every item, and the
 * TTL attribute DynamoDB deletes expired items by.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items late, so code checks expiry itself. */
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const;
