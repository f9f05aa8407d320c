import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The price types whose access code (password) is `code`. Both sides are hashed first so every
 * comparison is constant-time whatever the lengths, and every code of the event is compared (no
 * early exit), so the answer time does not tell how close a guess was or which type it matched.
 * An empty code opens nothing.
 */
export function priceTypesOpenedBy(
  codes: readonly { priceTypeId: string; code: string }[],
  code: string,
): string[] {
  if (code.length === 0) return [];
  const given = digest(code);
  const opened: string[] = [];
  for (const entry of codes) {
    if (timingSafeEqual(digest(entry.code), given) && entry.code.length > 0)
      opened.push(entry.priceTypeId);
  }
  return [...new Set(opened)];
}
