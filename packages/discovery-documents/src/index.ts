/**
 * `@marquee/discovery-documents`: how catalog events, venues and attractions look in Discovery v2
 * (HAL JSON). catalog-indexer renders each event's document when it indexes the event, and
 * each venue's and attraction's when its upcoming-event count moves, so a search page is joined
 * from bytes rendered before; the edge renders the same documents for a requested locale and for
 * details routes. One implementation, so both give the same bytes.
 */
export * from './hal.js';
export * from './localized.js';
export * from './page-json.js';
