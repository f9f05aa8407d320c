import type { Event } from '@marquee/proto/catalog/v1';
import { DISCOVERY_BASE, eventBody, eventRefs, type EventRefs } from './hal.js';

/**
 * An event document up to its links (`eventBody`) as UTF-8 JSON without its closing brace: the part
 * of a page that depends on one version of the event and the locale alone. Bytes outside the
 * JavaScript heap: kept as strings, every newly rendered body would be copied by the young
 * generation's collector (bench/discovery with --trace-gc: 8-28 ms scavenges every few hundred ms).
 */
export function eventHead(event: Event, locale: string | undefined): Buffer {
  return exactUtf8(JSON.stringify(eventBody(event, locale)).slice(0, -1));
}

/** A Buffer of exactly the UTF-8 bytes of `text` (not a slice of Node's shared pool). */
export function exactUtf8(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buffer.write(text);
  return buffer;
}

/**
 * Appends text and bytes into one scratch buffer (shared by all writers of the process and grown as
 * needed: a page is written in one synchronous run), then copies out the result.
 */
export class Utf8Writer {
  private static scratch = Buffer.allocUnsafeSlow(256 * 1024);
  private at = 0;

  text(text: string): void {
    this.room(3 * text.length);
    this.at += Utf8Writer.scratch.write(text, this.at);
  }

  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    Utf8Writer.scratch.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  /**
   * The written bytes in a Buffer of their own, of exactly their size, after `header` when given
   * (one allocation for a message and its framing).
   */
  finish(header?: Uint8Array): Buffer {
    const before = header?.length ?? 0;
    const out = Buffer.allocUnsafeSlow(before + this.at);
    if (header) out.set(header, 0);
    Utf8Writer.scratch.copy(out, before, 0, this.at);
    return out;
  }

  private room(bytes: number): void {
    const scratch = Utf8Writer.scratch;
    if (this.at + bytes <= scratch.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(2 * scratch.length, this.at + bytes));
    scratch.copy(grown, 0, 0, this.at);
    Utf8Writer.scratch = grown;
  }
}

const href = (path: string) => `{"href":${JSON.stringify(`${DISCOVERY_BASE}${path}`)}}`;

/**
 * `"_links":{…},"_embedded":{"venues":[`: the links of an event document to the venue and
 * attractions its page carries, up to where the venue's document goes (eventLinks in hal.ts).
 */
function linksOpening(
  id: string,
  venueId: string | undefined,
  attractionIds: readonly string[],
  locale: string | undefined,
): string {
  const self = href(`/events/${id}${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`);
  const attractionLinks = attractionIds.map((a) => href(`/attractions/${a}`)).join(',');
  const venueLinks = venueId === undefined ? '' : href(`/venues/${venueId}`);
  return (
    `"_links":{"self":${self},"attractions":[${attractionLinks}],"venues":[${venueLinks}]},` +
    `"_embedded":{"venues":[`
  );
}

/** Between the embedded venue and the embedded attractions of an event document. */
const VENUES_TO_ATTRACTIONS = '],"attractions":[';
/** The end of an event document, after its embedded attractions. */
const DOCUMENT_END = ']}}';

/**
 * `"_links":{…},"_embedded":{…}}`: the end of an event document (`eventLinks` in hal.ts) from the
 * rendered documents of the venues and attractions its page carries (`venueJson`, `attractionJson`:
 * the JSON of `venueDocument`, `attractionDocument`); what the page does not carry is left out.
 */
export function linksJson(
  refs: EventRefs,
  venueJson: (id: string) => string | undefined,
  attractionJson: (id: string) => string | undefined,
  locale: string | undefined,
): string {
  const venue = refs.venueId ? venueJson(refs.venueId) : undefined;
  const carried: string[] = [];
  const documents: string[] = [];
  for (const id of refs.attractionIds) {
    const json = attractionJson(id);
    if (json === undefined) continue;
    carried.push(id);
    documents.push(json);
  }
  return (
    linksOpening(refs.id, venue === undefined ? undefined : refs.venueId, carried, locale) +
    (venue ?? '') +
    VENUES_TO_ATTRACTIONS +
    documents.join(',') +
    DOCUMENT_END
  );
}

/**
 * An event's document up to where its embedded venue goes, for pages that carry the event's venue
 * and all its attractions (as catalog-indexer's do: it knows every venue and attraction an event
 * names): everything in it but the venue and attraction documents, whose upcoming-event counts
 * change without the event changing. writeEventDocument completes it.
 */
export function eventOpening(event: Event, locale: string | undefined): string {
  const refs = eventRefs(event);
  const body = JSON.stringify(eventBody(event, locale)).slice(0, -1);
  const venueId = refs.venueId ? refs.venueId : undefined;
  return `${body},${linksOpening(refs.id, venueId, refs.attractionIds, locale)}`;
}

/**
 * Writes a whole event document: its opening (eventOpening), then the documents of its venue (if
 * it has one) and of its attractions in the event's order, each as UTF-8 JSON.
 */
export function writeEventDocument(
  out: Utf8Writer,
  opening: Uint8Array,
  venue: Uint8Array | undefined,
  attractions: readonly Uint8Array[],
): void {
  out.bytes(opening);
  if (venue !== undefined) out.bytes(venue);
  out.text(VENUES_TO_ATTRACTIONS);
  for (let i = 0; i < attractions.length; i++) {
    if (i > 0) out.text(',');
    out.bytes(attractions[i]!);
  }
  out.text(DOCUMENT_END);
}
