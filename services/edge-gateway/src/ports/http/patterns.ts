/**
 * Building blocks of the JSON Schema patterns (ECMA-262, as ajv and the OpenAPI document read them)
 * that state what a route reads by hand: case-insensitive words, lists with blanks. Each pattern
 * they build is unambiguous (linear to match): items hold no blank and no comma.
 */

/** `word` in any case: `[Ee][Xx]...`. */
export const anyCase = (word: string): string =>
  [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');

/** `word` in any case, with blanks anywhere between its characters (read with blanks removed). */
export const anyCaseSpaced = (word: string): string =>
  [...word].map((c) => anyCase(c)).join('\\s*');

/** A comma-separated list of `item`s, blanks around items and empty items allowed. */
export const listOf = (item: string): string => {
  const entry = `\\s*(?:(?:${item})\\s*)?`;
  return `^${entry}(?:,${entry})*$`;
};

/** One `value` with blanks around it, or only blanks (read as absent). */
export const blankOr = (value: string): string => `^\\s*(?:(?:${value})\\s*)?$`;
