// Stands in for mnemonist's LRU cache in the bundles: the small part of it the SDK uses.

/**
 * Stands in for `mnemonist/lru-cache` in the deployed bundles: the DynamoDB client's endpoint
 * discovery cache (`@aws-sdk/endpoint-cache`) is its only user, and it calls the five methods
 * below. mnemonist's typed-array LRU and its helpers are 7 KB in every function for a cache that
 * stays empty (DynamoDB endpoint discovery is off unless a client turns it on). A Map keeps
 * insertion order, which is all a least-recently-used cache needs.
 */
export default class LruCache<K, V> {
  private readonly items = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('lru-cache: capacity should be a positive number');
  }

  get size(): number {
    return this.items.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.items.has(key)) return undefined;
    const value = this.items.get(key) as V;
    this.items.delete(key);
    this.items.set(key, value);
    return value;
  }

  /** The value, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.items.get(key);
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  /** Stores the value as the most recently used; past capacity, the least recently used goes. */
  set(key: K, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value as K);
  }

  clear(): void {
    this.items.clear();
  }
}
