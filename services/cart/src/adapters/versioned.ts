/** What cart's repositories share over versioned stores. */

/** The document without its store version, as the domain holds it. */
export function withoutVersion<T extends { version: number }>(doc: T): Omit<T, 'version'> {
  const { version: _version, ...rest } = doc;
  return rest;
}
