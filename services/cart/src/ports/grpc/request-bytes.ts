/**
 * The request as idempotency hashes it: the operation name and the request encoded without its
 * key, so one key given to two operations is two requests.
 */
export function requestBytes(operation: string, encoded: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(`${operation}\u0000`);
  const bytes = new Uint8Array(name.length + encoded.length);
  bytes.set(name);
  bytes.set(encoded, name.length);
  return bytes;
}
