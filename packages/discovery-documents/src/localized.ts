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
