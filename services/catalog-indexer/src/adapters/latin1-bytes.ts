/**
 * Bytes kept as a Latin-1 string: one character per byte, so any bytes come back exactly as they
 * went in. What the index and the in-memory read model hold for each event (the packed event, the
 * stored payload): one heap object the garbage collector marks without reading it, where a
 * `Uint8Array` is three objects (the view, its `ArrayBuffer`, its elements or a native backing store
 * the collector sweeps). For 100,000 events that is 200,000 objects fewer per store for every major
 * collection of catalog-indexer's heap to visit (README, "Documents").
 */
export const latin1String = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** The bytes of a `latin1String`, or of part of one (a copy). */
export const latin1Bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
