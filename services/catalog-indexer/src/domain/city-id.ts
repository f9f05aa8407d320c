import type { LocalizedText } from './model.js';
import { localeValues, normalizedPhrase } from './text.js';

/** City ids have 48 bits: at most 281,474,976,710,655 (15 digits), exact as a JSON number. */
export const CITY_ID_BITS = 48;
const MASK = (1n << BigInt(CITY_ID_BITS)) - 1n;

/**
 * The stable numeric id of a city (international `city_id`, `city_ids`): FNV-1a (64 bits) of the
 * upper-case country code and the folded city name (case, accents and spacing ignored), reduced to
 * its low 48 bits; 0 never names a city. The same city of the same country gets the same id in every
 * process, after every rebuild and from every publisher that spells it alike. Two distinct cities
 * share an id with probability about n² / 2⁴⁹ for n cities (n = 100,000: 1.8·10⁻⁵); a shared id
 * only makes `city_ids` match both cities (README "City ids").
 */
export function cityId(countryCode: string, cityName: string): number {
  const name = normalizedPhrase(cityName);
  if (name === '') return 0;
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask64 = 0xffffffffffffffffn;
  for (const char of `${countryCode.trim().toUpperCase()}\u0000${name}`) {
    hash ^= BigInt(char.codePointAt(0) ?? 0);
    hash = (hash * prime) & mask64;
  }
  return Number(hash & MASK) || 1;
}

/** The id shown for a venue's city: the city name in its first locale; 0 without a city name. */
export function primaryCityId(countryCode: string, cityNames: LocalizedText | undefined): number {
  return cityId(countryCode, localeValues(cityNames)[0] ?? '');
}

/** The ids of every locale's name of a city (a `city_ids` filter matches any of them). */
export function cityIds(countryCode: string, cityNames: LocalizedText | undefined): number[] {
  return [...new Set(localeValues(cityNames).map((n) => cityId(countryCode, n)))].filter(
    (id) => id !== 0,
  );
}
