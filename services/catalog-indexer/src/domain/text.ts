import type { LocalizedText } from './model.js';

/** Every value of a localized text, in the producer's order. */
export function localeValues(text: LocalizedText | undefined): string[] {
  return text ? Object.values(text.values) : [];
}

/** The first locale a text is given in (the publisher's primary locale), or undefined. */
export function firstLocale(text: LocalizedText | undefined): string | undefined {
  return text ? Object.keys(text.values)[0] : undefined;
}

/**
 * The text in `locale` (case-insensitive), with no fallback to another locale (Discovery v2's
 * `locale`: no fallback, so a multilingual field may be empty). Without a locale, the text's first
 * locale.
 */
export function pickText(text: LocalizedText | undefined, locale: string | undefined): string {
  if (!text) return '';
  if (locale === undefined || locale === '') return Object.values(text.values)[0] ?? '';
  const wanted = locale.toLowerCase();
  for (const [key, value] of Object.entries(text.values)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return '';
}

/** Folds case and diacritics so "Beyoncé" and "beyonce" compare equal. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The whole words of a text, folded (letters and digits; everything else separates words). */
export function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A text compared as a whole: folded, surrounding and repeated whitespace removed. */
export function normalizedPhrase(text: string): string {
  return words(text).join(' ');
}

/**
 * A stable id derived from its parts (FNV-1a, 64 bits, base 36), so the same place or reference
 * always gets the same discovery id, in every process and after every rebuild.
 */
export function stableId(prefix: string, ...parts: string[]): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (const char of parts.join('\u0000')) {
    hash ^= BigInt(char.codePointAt(0) ?? 0);
    hash = (hash * prime) & mask;
  }
  return prefix + hash.toString(36).padStart(13, '0');
}
