/**
 * Public numeric ids. The deals API shows attractions, venues and genres by number (in its search
 * result attractionId, venueId, genre id are numbers) while the platform names them
 * by string ids. Each entity's number is a 53-bit hash of its kind and platform id: stable across
 * restarts, replicas and rebuilds without any shared counter, and a safe integer in JSON. With a
 * million entities of one kind the chance of any collision is about 1 in 18,000; the search index
 * detects and logs one (both entities then answer to the number).
 */
export type PublicIdKind = 'venue' | 'attraction' | 'genre';

/** cyrb53 (public domain): a fast 53-bit string hash with good dispersion. */
function cyrb53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The public number of a platform id; never 0 (0 means "absent" on the wire). */
export function publicIdOf(kind: PublicIdKind, platformId: string): number {
  return cyrb53(`${kind}:${platformId}`) || 1;
}
