/**
 * Integer numbers of price levels. Partner events name their price levels with strings
 * (`PL-BALCONY`), while the public APIs that sell them (the partner cart's `price.id`, international
 * discovery's `price_level_ids`) type a price level as an integer. Every service that hands out or
 * reads such an integer uses this one function, so a number shown by one API chooses the same price
 * level in another:
 *
 * - a price level whose id is a decimal integer (`"7"`, up to 2^31 − 1) is that integer;
 * - any other id is a 31-bit FNV-1a hash of its UTF-8 bytes, folded into [2^30, 2^31 − 1] so it
 *   fits a signed 32-bit integer and stays apart from the small numbers of numeric ids.
 *
 * The number depends on the id only (not on the order or the count of an event's price levels), so
 * it is stable for as long as the partner keeps the id. `priceLevelOfNumber` reads it back against
 * an event's levels: an exact id first, then the one level with that number; two levels with the
 * same number (a hash collision) are ambiguous and choose none.
 */
const HASH_BASE = 2 ** 30;
const INT32_MAX = 2 ** 31 - 1;

export function priceLevelNumber(id: string): number {
  if (/^\d{1,10}$/.test(id)) {
    const n = Number(id);
    if (n <= INT32_MAX) return n;
  }
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return HASH_BASE + (hash % HASH_BASE);
}

/**
 * The price level id that `requested` names among `levelIds`: the id itself when it is one, else
 * the single level whose `priceLevelNumber` it is (as a decimal string); `undefined` when none or
 * several are.
 */
export function priceLevelOfNumber(
  requested: string,
  levelIds: readonly string[],
): string | undefined {
  if (levelIds.includes(requested)) return requested;
  if (!/^\d{1,10}$/.test(requested)) return undefined;
  const n = Number(requested);
  const matches = levelIds.filter((id) => priceLevelNumber(id) === n);
  return matches.length === 1 ? matches[0] : undefined;
}
