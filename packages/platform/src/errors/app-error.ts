import { isErrorKind, type ErrorKind } from '../kernel/error-kind.js';

/**
 * What the platform recognises as an application error. Structural on purpose: `domain/` code
 * imports no platform but the pure subpaths (docs/decisions.md, Layers), so it declares its own
 * `class SeatTaken extends Error { kind = 'failed_precondition' as const }` (the kinds: `ErrorKind`
 * of `@marquee/platform/kernel`) and the gRPC/HTTP ports still map it correctly.
 */
export interface AppErrorLike {
  readonly kind: ErrorKind;
  readonly message: string;
  readonly details?: Record<string, unknown> | undefined;
}

export interface AppErrorOptions {
  /** Client-safe, JSON-serialisable facts about the failure (field names, ids, limits). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error implements AppErrorLike {
  readonly kind: ErrorKind;
  readonly details?: Record<string, unknown>;

  constructor(kind: ErrorKind, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    if (options.details !== undefined) this.details = options.details;
  }
}

/** True for any object carrying a known `kind` and a string `message`, whichever class made it. */
export function isAppErrorLike(error: unknown): error is AppErrorLike {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { kind?: unknown; message?: unknown; details?: unknown };
  if (!isErrorKind(candidate.kind) || typeof candidate.message !== 'string') return false;
  return (
    candidate.details === undefined ||
    (typeof candidate.details === 'object' &&
      candidate.details !== null &&
      !Array.isArray(candidate.details))
  );
}

const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid_argument: 400,
  not_found: 404,
  already_exists: 409,
  // Google's HTTP mapping of FAILED_PRECONDITION is 400; a family that documents 409/412 maps it itself.
  failed_precondition: 400,
  unauthenticated: 401,
  permission_denied: 403,
  resource_exhausted: 429,
  unavailable: 503,
  aborted: 409,
  deadline_exceeded: 504,
  internal: 500,
};

/** The HTTP status the platform's default error handler uses for a kind. */
export function httpStatusForKind(kind: ErrorKind): number {
  return HTTP_STATUS[kind];
}
