/**
 * Amounts of the commerce API are decimal strings in the currency's major unit ("19.75"); the
 * platform counts integer minor units (`marquee.common.v1.Money`). The number of decimals is the
 * currency's (ISO 4217, from Intl: 2 for USD, 0 for JPY, 3 for KWD).
 */

const digitsCache = new Map<string, number>();

/** Decimals of a currency; 2 for an unknown or empty code. */
export function currencyDigits(currency: string): number {
  const code = currency.toUpperCase();
  const cached = digitsCache.get(code);
  if (cached !== undefined) return cached;
  let digits = 2;
  if (/^[A-Z]{3}$/.test(code)) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
  }
  digitsCache.set(code, digits);
  return digits;
}

/** `1975, 'USD'` → `"19.75"`; `-5, 'USD'` → `"-0.05"`; `500, 'JPY'` → `"500"`. */
export function decimal(amountMinor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const negative = amountMinor < 0;
  const abs = String(Math.abs(Math.trunc(amountMinor))).padStart(digits + 1, '0');
  const whole = digits === 0 ? abs : abs.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${abs.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** A decimal amount as the API accepts it: digits, optionally a point and up to three decimals. */
export const DECIMAL_PATTERN = '^\\d{1,12}(\\.\\d{1,3})?$';

/**
 * `"19.75", 'USD'` → 1975. Undefined when the amount has more decimals than the currency allows
 * (`"1.005"` in USD) or is not a plain non-negative decimal.
 */
export function toMinor(amount: string, currency: string): number | undefined {
  const match = /^(\d{1,12})(?:\.(\d{1,3}))?$/.exec(amount);
  if (!match) return undefined;
  const digits = currencyDigits(currency);
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return undefined;
  const minor = Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  return Number.isSafeInteger(minor) ? minor : undefined;
}
