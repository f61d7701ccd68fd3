// A promise made once per key and shared by every caller while it stands.

/**
 * The promise `load` gives for `key`, made once and shared by every caller while it stands (a
 * secret read once per container, a request signer made once per client). A failed one is not
 * kept: the next call for the key tries again.
 */
export function sharedPromise<K, V>(cache: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  let pending = cache.get(key);
  if (!pending) {
    pending = load();
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}
