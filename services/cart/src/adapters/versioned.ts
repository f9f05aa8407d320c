/** What cart's repositories share over versioned stores. */

/** Compare-and-set attempts before a write that keeps losing gives up. */
export const MAX_CAS_ATTEMPTS = 32;

/** True when `error` is an application error of that kind (`already_exists`, ...). */
export const isKind = (error: unknown, kind: string): boolean =>
  (error as { kind?: unknown } | null)?.kind === kind;

/** The document without its store version, as the domain holds it. */
export function withoutVersion<T extends { version: number }>(doc: T): Omit<T, 'version'> {
  const { version: _version, ...rest } = doc;
  return rest;
}
