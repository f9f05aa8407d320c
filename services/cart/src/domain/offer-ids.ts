/**
 * Offer and password ids of the commerce API (top picks names its offers by them too). An offer is one price type at one price level, so its
 * id is derived from the two partner ids (stable for as long as the partner keeps them) and can be
 * decoded back without any lookup. base64url keeps any partner id URL- and JSON-safe.
 */

const SEPARATOR = '\u0000';

export function offerId(priceTypeId: string, priceLevelId: string): string {
  return Buffer.from(`${priceTypeId}${SEPARATOR}${priceLevelId}`, 'utf8').toString('base64url');
}

/** The price type and level of an offer id; undefined for anything that is not one. */
export function parseOfferId(
  id: string,
): { priceTypeId: string; priceLevelId: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(id)) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const parts = text.split(SEPARATOR);
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  // A canonical encoding only: other spellings of the same bytes are not offer ids.
  if (offerId(parts[0], parts[1]) !== id) return undefined;
  return { priceTypeId: parts[0], priceLevelId: parts[1] };
}

/** The password of a protected price type (never the password itself). */
export const passwordId = (priceTypeId: string): string =>
  `pw-${Buffer.from(priceTypeId, 'utf8').toString('base64url')}`;
