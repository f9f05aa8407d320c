import { Type } from '@sinclair/typebox';

/** The path `version` may be left out, default `v2`; it is the only version there is. */
export const SUPPORTED_VERSION = 'v2';

export const ErrorItemSchema = Type.Object({
  status: Type.String({ description: '`Rejected` (400) or `Error`' }),
  code: Type.String(),
  detail: Type.String(),
  invalidProperties: Type.Record(Type.String(), Type.Unknown()),
  missingProperties: Type.Record(Type.String(), Type.Unknown()),
});
export const ErrorBody = Type.Object({ errors: Type.Array(ErrorItemSchema) });

export const PublicationResult = Type.Object({
  status: Type.Union([Type.Literal('Success'), Type.Literal('SuccessWarning')]),
  message: Type.Optional(Type.String()),
  id: Type.String({ description: 'Generated public id of the event (15 alphanumeric characters)' }),
  missingProperties: Type.Record(Type.String(), Type.Unknown()),
  unknownProperties: Type.Record(Type.String(), Type.Unknown()),
});

export const ApiKeyQuery = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'Required on every call' })),
});
export const DeleteQuery = Type.Object({
  apikey: Type.Optional(Type.String()),
  version: Type.Optional(
    Type.String({
      pattern: '^\\d+(\\.\\d+)?$',
      description: "The publisher's version of the deletion; must not be lower than the stored one",
    }),
  ),
});
export const PublishHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes the publication safe to retry: a retry with the same key and the same body, by the ' +
        'same app within 24 h, answers the first outcome (the same status, body and event id) ' +
        'instead of creating another event. The same key with a different body answers 422 ' +
        '`IDEMPOTENCY_KEY_REUSED`; a retry while the first request still runs waits for it, then ' +
        'answers 409 `IDEMPOTENCY_KEY_IN_PROGRESS`. At most 255 printable ASCII characters; a ' +
        'random UUID per publication is a good key.',
    }),
  ),
});
export const ListQuery = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'Required on every call' })),
  size: Type.Optional(
    Type.String({
      pattern: '^(100|[1-9][0-9]?)$',
      description: 'Events per page, 1 to 100 (default 20)',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,200}$',
      description:
        '`nextCursor` of the previous page, as answered (opaque: another value answers 400 `INVALID_CURSOR`); absent for the first page',
    }),
  ),
});
const ListedEvent = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time', description: 'When the event was published' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When it last changed' }),
  event: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'The last accepted body, verbatim (unknown properties included)',
    },
  ),
});
export const EventList = Type.Object({
  events: Type.Array(ListedEvent, { description: 'Newest publication first (ties by id)' }),
  nextCursor: Type.Optional(
    Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }),
  ),
});
/** The API version of the path: `v2` (another answers 404 `UNSUPPORTED_VERSION`). */
const Version = Type.Literal(SUPPORTED_VERSION, {
  description: 'API version; another answers 404 `UNSUPPORTED_VERSION`',
});
export const VersionParams = Type.Object({ version: Version });
export const IdParams = Type.Object({ id: Type.String() });
export const VersionIdParams = Type.Object({ version: Version, id: Type.String() });
