import { isKnownCurrency, parseDecimal, toDecimalString } from '@marquee/platform/money';

/**
 * Amounts of the commerce API are decimal strings in the currency's major unit ("19.75"); the
 * platform counts integer minor units (`marquee.common.v1.Money`). The currency's decimals are ISO
 * 4217's, from the platform's money module (packages/platform/src/money/README.md).
 */

/** `1975, 'USD'` → `"19.75"`; `-5, 'USD'` → `"-0.05"`; `500, 'JPY'` → `"500"`; `45500, 'KWD'` → `"45.500"`. */
export const decimal = (amountMinor: number, currency: string): string =>
  toDecimalString(amountMinor, currency);

/** A decimal amount as the API accepts it: digits, optionally a point and up to three decimals. */
export const DECIMAL_PATTERN = '^\\d{1,12}(\\.\\d{1,3})?$';

/**
 * `"19.75", 'USD'` → 1975. Undefined when the currency is not an ISO 4217 one, the amount has more
 * decimals than the currency allows (`"1.005"` in USD) or is not a plain non-negative decimal.
 */
export function toMinor(amount: string, currency: string): number | undefined {
  if (!isKnownCurrency(currency)) return undefined;
  return parseDecimal(amount, currency);
}
