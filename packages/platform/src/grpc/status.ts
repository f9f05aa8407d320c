import { Metadata, status as Status } from '@grpc/grpc-js';
import { AppError, isAppErrorLike, isTransientError, type ErrorKind } from '../errors/index.js';

/** Trailing-metadata key carrying an error's `details` as JSON (ASCII-escaped, as metadata must be). */
export const ERROR_DETAILS_KEY = 'x-error-details';

// Trailers share the header size budget (8 KiB by default); details bigger than this are dropped
// rather than making the whole response fail.
const MAX_DETAILS_BYTES = 4_096;

const TO_STATUS: Record<ErrorKind, Status> = {
  invalid_argument: Status.INVALID_ARGUMENT,
  not_found: Status.NOT_FOUND,
  already_exists: Status.ALREADY_EXISTS,
  failed_precondition: Status.FAILED_PRECONDITION,
  unauthenticated: Status.UNAUTHENTICATED,
  permission_denied: Status.PERMISSION_DENIED,
  resource_exhausted: Status.RESOURCE_EXHAUSTED,
  unavailable: Status.UNAVAILABLE,
  aborted: Status.ABORTED,
  deadline_exceeded: Status.DEADLINE_EXCEEDED,
  internal: Status.INTERNAL,
};

export function toGrpcStatus(kind: ErrorKind): Status {
  return TO_STATUS[kind];
}

/** The kind a caller sees for a status; codes with no kind of their own fold into the nearest one. */
export function kindFromGrpcStatus(code: number): ErrorKind {
  switch (code) {
    case Status.INVALID_ARGUMENT:
    case Status.OUT_OF_RANGE:
      return 'invalid_argument';
    case Status.NOT_FOUND:
      return 'not_found';
    case Status.ALREADY_EXISTS:
      return 'already_exists';
    case Status.FAILED_PRECONDITION:
      return 'failed_precondition';
    case Status.UNAUTHENTICATED:
      return 'unauthenticated';
    case Status.PERMISSION_DENIED:
      return 'permission_denied';
    case Status.RESOURCE_EXHAUSTED:
      return 'resource_exhausted';
    case Status.UNAVAILABLE:
      return 'unavailable';
    case Status.ABORTED:
    case Status.CANCELLED:
      return 'aborted';
    case Status.DEADLINE_EXCEEDED:
      return 'deadline_exceeded';
    default:
      // UNKNOWN, INTERNAL, UNIMPLEMENTED, DATA_LOSS: a fault on the other side, not the caller's.
      return 'internal';
  }
}

/** A status as grpc-js's callback and stream `error` event accept it (code, details, trailers). */
export class GrpcStatusError extends Error {
  readonly code: Status;
  readonly details: string;
  readonly metadata: Metadata;

  constructor(code: Status, details: string, metadata: Metadata = new Metadata()) {
    super(details);
    this.name = 'GrpcStatusError';
    this.code = code;
    this.details = details;
    this.metadata = metadata;
  }
}

const INTERNAL_MESSAGE = 'internal error';
const TRANSIENT_MESSAGE = 'temporarily unavailable, retry shortly';

function isGrpcStatusLike(
  error: unknown,
): error is { code: number; details?: unknown; metadata?: unknown; message?: unknown } {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'number' &&
    Number.isInteger((error as { code: number }).code) &&
    (error as { code: number }).code >= 0 &&
    (error as { code: number }).code <= 16
  );
}

/**
 * What a server sends for a thrown error. An application error keeps its kind, message and details;
 * an `internal` one, or anything else, becomes INTERNAL with a generic message: exception texts and
 * stacks describe our internals, not the caller's request. A status error from a downstream gRPC
 * call is mapped by its code in the same way. A passing infrastructure failure (the database or the
 * broker unreachable for a moment) is UNAVAILABLE, which tells the caller to retry.
 */
export function toGrpcError(error: unknown): GrpcStatusError {
  if (!isAppErrorLike(error) && isTransientError(error)) {
    return new GrpcStatusError(Status.UNAVAILABLE, TRANSIENT_MESSAGE);
  }
  const appError = isAppErrorLike(error)
    ? error
    : isGrpcStatusLike(error)
      ? fromGrpcError(error)
      : undefined;
  if (appError === undefined || appError.kind === 'internal') {
    return new GrpcStatusError(Status.INTERNAL, INTERNAL_MESSAGE);
  }
  const metadata = new Metadata();
  const encoded = encodeDetails(appError.details);
  if (encoded !== undefined) metadata.set(ERROR_DETAILS_KEY, encoded);
  return new GrpcStatusError(toGrpcStatus(appError.kind), appError.message, metadata);
}

function encodeDetails(details: Record<string, unknown> | undefined): string | undefined {
  if (details === undefined || Object.keys(details).length === 0) return undefined;
  let json: string;
  try {
    json = JSON.stringify(details);
  } catch {
    return undefined;
  }
  // Non-binary metadata values must be printable ASCII; \u escapes keep the JSON equivalent.
  const ascii = json.replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return ascii.length <= MAX_DETAILS_BYTES ? ascii : undefined;
}

function decodeDetails(metadata: unknown): Record<string, unknown> | undefined {
  if (!(metadata instanceof Metadata)) return undefined;
  const [raw] = metadata.get(ERROR_DETAILS_KEY);
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The application error a failed call stands for: kind from the status code, message from the
 * status details, `details` from {@link ERROR_DETAILS_KEY}. Anything that is no gRPC error becomes
 * `internal` (an application error passes through unchanged).
 */
export function fromGrpcError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isGrpcStatusLike(error)) {
    const message =
      typeof error.details === 'string' && error.details.length > 0
        ? error.details
        : typeof error.message === 'string'
          ? error.message
          : `gRPC status ${error.code}`;
    const details = decodeDetails(error.metadata);
    // grpc-js reports a stream the connection lost (reset, session closed under it) as INTERNAL
    // with these words; no server answered it, so it is a transport failure a retry may cure.
    const lostStream =
      error.code === Status.INTERNAL &&
      /^Received RST_STREAM with code \d+ triggered by internal client error/.test(message);
    return new AppError(lostStream ? 'unavailable' : kindFromGrpcStatus(error.code), message, {
      cause: error,
      ...(details === undefined ? {} : { details }),
    });
  }
  if (isAppErrorLike(error)) {
    return new AppError(error.kind, error.message, {
      cause: error,
      ...(error.details === undefined ? {} : { details: error.details }),
    });
  }
  return new AppError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
