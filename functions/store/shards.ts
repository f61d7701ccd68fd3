// Write sharding: a stable shard of an id.

/**
 * Write sharding: an item or index partition every request of a busy route would write is
 * split into `n` keys, and a request picks one by a stable hash of its own id (a session id, an
 * alert id). Stable, so the same session always lands on the same shard (its open and its
 * close, its index entry before and after an interim); a hash, so ids spread evenly whatever
 * their shape. Readers read every shard (functions/store/counters.ts sums them).
 *
 * FNV-1a (32 bits): a few multiplications per character, no crypto needed to spread keys.
 */
export function shardOf(value: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
