/**
 * A stored record without the store's version: what a domain holds and a port answers (the
 * version is the store's compare-and-set token, passed beside the record).
 */
export function withoutVersion<T extends object>(doc: T): Omit<T, 'version'> {
  const { version: _version, ...rest } = doc as T & { version?: unknown };
  return rest;
}
