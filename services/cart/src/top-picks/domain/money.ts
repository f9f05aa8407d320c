/** An amount in minor units of an ISO 4217 currency (no floating point near prices). */
export interface Money {
  amountMinor: number;
  currency: string;
}

const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency (EUR 2, JPY 0, KWD 3); 2 for codes `Intl` does not know. */
export function currencyDigits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = digitsCache.get(code);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsCache.set(code, digits);
  }
  return digits;
}

/** Minor units → the decimal number the public JSON shows (2550 EUR → 25.5). */
export function toMajor(money: Money): number {
  const digits = currencyDigits(money.currency);
  return Number((money.amountMinor / 10 ** digits).toFixed(digits));
}

const DECIMAL = /^\d{1,12}(\.\d{1,6})?$/;

/**
 * A decimal text of the public API (`prices=20,80.5`) → minor units of the currency, or `undefined`
 * when it is not a non-negative decimal. Digits beyond the currency's are rounded half up.
 */
export function parseDecimal(text: string, currency: string): number | undefined {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return undefined;
  const digits = currencyDigits(currency);
  const [whole = '0', fraction = ''] = trimmed.split('.');
  const padded = fraction.padEnd(digits + 1, '0');
  const kept = padded.slice(0, digits);
  const roundUp = Number(padded[digits] ?? '0') >= 5 ? 1 : 0;
  return Number(whole) * 10 ** digits + Number(kept || '0') + roundUp;
}
