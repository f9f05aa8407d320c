import type { LocalizedString } from '@marquee/proto/common/v1';

/**
 * The text in the requested locale, case-insensitive, with no fallback (Discovery v2's `locale`:
 * no fallback, so a multilingual field may be empty). Without a locale (or `*`): the text's first locale,
 * the one its publisher gave first.
 */
export function localized(text: LocalizedString | undefined, locale: string | undefined): string {
  if (!text) return '';
  if (!locale || locale === '*') return Object.values(text.values)[0] ?? '';
  const wanted = locale.toLowerCase();
  for (const [key, value] of Object.entries(text.values)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return '';
}

/** The locale a response reports: the requested one, else the first locale of the main text. */
export function reportedLocale(
  locale: string | undefined,
  main: LocalizedString | undefined,
): string {
  if (locale && locale !== '*') return locale;
  return Object.keys(main?.values ?? {})[0] ?? 'en-us';
}

const zeroDecimalCurrencies = new Set(['JPY', 'KRW', 'CLP', 'ISK', 'VND', 'XAF', 'XOF', 'HUF']);

/** Minor units (as stored) to the decimal amount the APIs show. */
export function majorAmount(amountMinor: number, currency: string): number {
  return zeroDecimalCurrencies.has(currency.toUpperCase()) ? amountMinor : amountMinor / 100;
}
