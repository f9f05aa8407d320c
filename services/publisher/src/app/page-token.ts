import { InvalidListRequest } from '../domain/published-event.js';

/** Where a page of an app's events ends: the last event's publication instant and id. */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

const ID = /^[A-Za-z0-9]{1,64}$/;
const MAX_TOKEN_LENGTH = 200;

/**
 * The page token (the HTTP `cursor`): base64url of `[createdAtMs, id]` of the last event of the
 * page. Opaque to callers; a position rather than an offset, so events published while a client
 * pages through the list never shift an event onto a second page or past the end.
 */
export function encodePageToken(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString(
    'base64url',
  );
}

/** The position a token names; {@link InvalidListRequest} (`INVALID_CURSOR`) for anything else. */
export function decodePageToken(token: string): PagePosition {
  const invalid = () =>
    new InvalidListRequest('INVALID_CURSOR', 'cursor', 'is not a cursor this API answered');
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    !Number.isSafeInteger(decoded[0]) ||
    typeof decoded[1] !== 'string' ||
    !ID.test(decoded[1])
  ) {
    throw invalid();
  }
  const createdAt = new Date(decoded[0] as number);
  if (Number.isNaN(createdAt.getTime())) throw invalid();
  return { createdAt, id: decoded[1] };
}
