import type { ClassificationLevel, ClassificationSegment } from '../model.js';
import { fold, localeValues, normalizedPhrase, words } from '../text.js';
import { compareText, type EventColumnStore } from './column-store.js';
import {
  checkPage,
  MAX_EVENT_PAGE_SIZE,
  type ClassificationQuery,
  type FoundClassification,
  type Page,
} from './query.js';

/**
 * Segments → genres → sub-genres as the visible events use them, by name: built from the column
 * store's entries on demand, at most a second old, and dropped on any change (`invalidate`).
 */
export class ClassificationTree {
  private built: { atS: number; segments: ClassificationSegment[] } | undefined;

  constructor(private readonly store: EventColumnStore) {}

  invalidate(): void {
    this.built = undefined;
  }

  /** Segments having a level whose name holds every keyword word (discovery v2 `/classifications`). */
  search(q: ClassificationQuery, now: Date): Page<ClassificationSegment> {
    const { offset, limit } = checkPage(q.page, MAX_EVENT_PAGE_SIZE);
    const wanted = [...new Set(words(q.keyword))];
    const nameWords = (level: ClassificationLevel | undefined) =>
      localeValues(level?.names).flatMap(words);
    const found = this.segments(now).filter((s) => {
      if (wanted.length === 0) return true;
      const all = new Set([
        ...nameWords(s.segment),
        ...s.genres.flatMap((g) => [...nameWords(g.genre), ...g.subGenres.flatMap(nameWords)]),
      ]);
      return wanted.every((w) => all.has(w));
    });
    return { items: found.slice(offset, offset + limit), total: found.length, offset, limit };
  }

  /** The segment holding a segment, genre or sub-genre id, and the level the id names. */
  find(id: string, now: Date): FoundClassification | undefined {
    for (const segment of this.segments(now)) {
      if (segment.segment?.id === id) return { segment, level: 'segment' };
      for (const g of segment.genres) {
        if (g.genre?.id === id) return { segment, level: 'genre' };
        if (g.subGenres.some((sub) => sub.id === id)) return { segment, level: 'subgenre' };
      }
    }
    return undefined;
  }

  private segments(now: Date): ClassificationSegment[] {
    const second = Math.floor(now.getTime() / 1000);
    if (this.built?.atS === second) return this.built.segments;
    // A level without an id is keyed by its folded first name, so name-only levels merge.
    const keyOf = (level: ClassificationLevel) =>
      level.id || `#${normalizedPhrase(localeValues(level.names)[0] ?? '')}`;
    const segments = new Map<
      string,
      {
        segment: ClassificationLevel;
        genres: Map<
          string,
          { genre: ClassificationLevel; subGenres: Map<string, ClassificationLevel> }
        >;
        events: Set<string>;
      }
    >();
    for (const e of this.store.entries.values()) {
      if (!this.store.visibleAt(e, now.getTime())) continue;
      for (const c of e.classifications) {
        if (!c.segment) continue;
        const segmentKey = keyOf(c.segment);
        let node = segments.get(segmentKey);
        if (!node)
          segments.set(
            segmentKey,
            (node = { segment: c.segment, genres: new Map(), events: new Set() }),
          );
        node.events.add(e.id);
        if (!c.genre) continue;
        const genreKey = keyOf(c.genre);
        let genre = node.genres.get(genreKey);
        if (!genre) node.genres.set(genreKey, (genre = { genre: c.genre, subGenres: new Map() }));
        if (c.subGenre) genre.subGenres.set(keyOf(c.subGenre), c.subGenre);
      }
    }
    const byName = (a: ClassificationLevel | undefined, b: ClassificationLevel | undefined) =>
      compareText(fold(localeValues(a?.names)[0] ?? ''), fold(localeValues(b?.names)[0] ?? ''));
    const tree = [...segments.values()]
      .map((node): ClassificationSegment => ({
        segment: node.segment,
        eventCount: node.events.size,
        genres: [...node.genres.values()]
          .map((g) => ({ genre: g.genre, subGenres: [...g.subGenres.values()].sort(byName) }))
          .sort((a, b) => byName(a.genre, b.genre)),
      }))
      .sort((a, b) => byName(a.segment, b.segment));
    this.built = { atS: second, segments: tree };
    return tree;
  }
}
