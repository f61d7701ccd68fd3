// The single table's shape (keys, GSIs and their projections, TTL, stream), shared by the stack and the local table.

/**
 * The single table's shape, shared by the CDK stack and the local server so that both create
 * the same table. Every entity declares its keys on these generic names (functions/store/
 * entity.ts): `pk`/`sk`, overloaded indexes (three projecting ALL, two narrow), an `entity`
 * attribute on every item, and the TTL attribute DynamoDB deletes expired items by.
 *
 * An entity's index names an access pattern (`Session` 'openByNas') and says which of these
 * GSIs carries it: moving a pattern to another GSI, or changing what a GSI projects, is an edit
 * here or in that one declaration.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items late, so code checks expiry itself. */
  ttlAttribute: 'ttl',
  /**
   * What the table's stream carries: each changed item as written (its consumers read the new
   * item only: functions/streams.ts). The stack and the local table both enable it.
   */
  streamView: 'NEW_IMAGE',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    // Completed payments by hour of completion (the paid-never-used job): its own GSI, since a
    // payment already uses gsi1 (pending) and gsi2 (by reseller).
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'ALL' },
    // Open RADIUS sessions by NAS: a narrow projection, so that an interim (new byte counts,
    // none of these attributes) writes no copy here; its readers get the rest by key
    // (docs/scale.md, "Writes per key"). A subscriber's payments too (ids only: what an erasure
    // needs; written once per payment).
    {
      name: 'gsi4',
      partitionKey: 'gsi4pk',
      sortKey: 'gsi4sk',
      projection: 'INCLUDE',
      nonKeyAttributes: ['id', 'code', 'device'],
    },
    // A reseller's vouchers by status (the voucher is its access code, one item): what a list
    // and the batch CSV show, and none of what a login or an accounting report changes on a
    // code (devices, used bytes), so those write no copy here.
    {
      name: 'gsi5',
      partitionKey: 'gsi5pk',
      sortKey: 'gsi5sk',
      projection: 'INCLUDE',
      nonKeyAttributes: [
        'code',
        'reseller_id',
        'source_id',
        'forfait_id',
        'price_fcfa',
        'currency',
        'voucher_status',
        'created_at',
        'use_by',
        'redeemed_at',
        'redeemed_by',
        'expires_at',
        'revoked_at',
      ],
    },
    // Live access codes by reseller, in shards, by change time (the in-country edges' replica:
    // functions/edge/replica.ts): what an edge decides a login on, and none of what a login after
    // the first or an accounting report changes (devices, used bytes: `replica_bytes` moves in
    // steps), so those write no copy here.
    {
      name: 'gsi6',
      partitionKey: 'gsi6pk',
      sortKey: 'gsi6sk',
      projection: 'INCLUDE',
      nonKeyAttributes: [
        'code',
        'reseller_id',
        'source',
        'offer',
        'use_by',
        'started_at',
        'expires_at',
        'revoked_at',
        'replica_bytes',
        'replica_at',
        'topups',
        'created_at',
      ],
    },
  ],
} as const;
