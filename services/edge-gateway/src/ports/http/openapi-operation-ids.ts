import type { ApiFamily } from './families/family.js';

/**
 * The `operationId` of every operation, what a client generator names its methods after: derived
 * from the operation's family, method and route, so it is stable across regenerations and needs no
 * upkeep when a route is added. A route that sets `operationId` in its schema keeps its own.
 *
 * The id is camelCase words: the method, the family (`partnerCart`), the words that set a twin
 * prefix apart from the family's first one (`preprod` for `/partners-preprod/v1`, `qa` for
 * `/dc/content-qa/v1`), then the route after the prefix, a path parameter as `By` and its name:
 * `GET /discovery/v2/events/{id}` is `getDiscoveryEventsById`, `POST
 * /partners-preprod/v1/events/{event_id}/cart` is `postPartnerCartPreprodEventsByEventIdCart`.
 */
export function operationIdOf(family: ApiFamily | undefined, method: string, path: string): string {
  const prefix = family ? longestPrefix(family, path) : undefined;
  const route = prefix === undefined ? path : path.slice(prefix.length);
  const words = [method, ...(family ? wordsOf(family.id) : [])];
  if (family && prefix !== undefined && prefix !== family.prefixes[0]) {
    const first = new Set(wordsOf(family.prefixes[0]!));
    words.push(...wordsOf(prefix).filter((word) => !first.has(word)));
  }
  // `{event_id}` reads `by event id`, inside a segment too (`offers.{format}`).
  words.push(...wordsOf(route.replace(/\{([^}]+)\}/g, ' by $1 ')));
  return words
    .map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}

/** Words of a name or path: split at anything not a letter or digit, and at camelCase humps. */
function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

function longestPrefix(family: ApiFamily, path: string): string | undefined {
  return family.prefixes
    .filter((prefix) => path === prefix || path.startsWith(`${prefix}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Throws when two operations share an id (a client generator would merge or drop one). */
export function assertUniqueOperationIds(ids: Iterable<[string, string]>): void {
  const seen = new Map<string, string>();
  for (const [id, where] of ids) {
    const other = seen.get(id);
    if (other !== undefined)
      throw new Error(`operationId ${id} is used twice: by ${other} and by ${where}`);
    seen.set(id, where);
  }
}
