const zeroDecimalCurrencies = new Set(['JPY', 'KRW', 'CLP', 'ISK', 'VND', 'XAF', 'XOF', 'HUF']);

/** Minor units (as stored in `Money.amount_minor`) to the decimal amount the APIs show. */
export function majorAmount(amountMinor: number, currency: string): number {
  return zeroDecimalCurrencies.has(currency.toUpperCase()) ? amountMinor : amountMinor / 100;
}
