/**
 * The error vocabulary shared by every layer. The kinds follow the canonical gRPC codes so that a
 * domain error travels unchanged from a use case, through the gRPC port, across the network, to the
 * edge that turns it into an API family's HTTP body (docs/api-families.md).
 */
export const ERROR_KINDS = [
  'invalid_argument',
  'not_found',
  'already_exists',
  'failed_precondition',
  'unauthenticated',
  'permission_denied',
  'resource_exhausted',
  'unavailable',
  'aborted',
  'deadline_exceeded',
  'internal',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(ERROR_KINDS);

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && KIND_SET.has(value);
}

/**
 * The `kind` an error carries, whichever class made it (errors are recognised structurally, so
 * domain code declares its own), or undefined when it carries none or one that is not a kind.
 */
export function errorKindOf(error: unknown): ErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { kind } = error as { kind?: unknown };
  return isErrorKind(kind) ? kind : undefined;
}

/** Kinds that say nothing about the request itself: the callee was unreachable, slow, or lost a race. */
const TRANSIENT_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'unavailable',
  'deadline_exceeded',
  'aborted',
  'internal',
]);

/**
 * Whether a failed call is worth trying again, as its caller sees it: an error without a kind (a
 * fault of the infrastructure, or a bug) or of a transient kind. The outcome of a state-changing
 * call that failed so may be unknown: retry it only when it is idempotent. An error with a kind
 * outside the vocabulary is the callee's own answer, not transient. (Server side, `isTransientError`
 * of `@marquee/platform/errors` tells which kindless errors are passing infrastructure faults.)
 */
export function isTransient(error: unknown): boolean {
  const kind =
    typeof error === 'object' && error !== null ? (error as { kind?: unknown }).kind : undefined;
  return kind === undefined || (isErrorKind(kind) && TRANSIENT_KINDS.has(kind));
}
