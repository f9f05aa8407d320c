import type { handleUnaryCall, ServerUnaryCall } from '@grpc/grpc-js';
import type { OnePerTurn } from './one-per-turn.js';

/** What a use case learns of the call it serves, besides the request. */
export interface UnaryCallInfo {
  /**
   * Milliseconds left before the caller's deadline, as of when it is read; undefined when the
   * caller set none.
   */
  readonly deadlineMs: number | undefined;
}

export interface UnaryOptions {
  /**
   * Runs each call in a turn of the event loop of its own (`OnePerTurn`), for CPU-heavy handlers;
   * a call its caller cancelled while it waited is then not run.
   */
  turns?: OnePerTurn;
}

/** The time left before the caller's deadline, when it set one (0 once it has passed). */
export function remainingDeadline(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'getDeadline'>,
  now: number = Date.now(),
): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * A unary gRPC handler that runs a use case on the request and answers with what it returns or
 * throws, synchronously or not: the server of `createGrpcServer` maps a thrown error's kind to its
 * status (status.ts), so handlers neither catch nor translate errors.
 */
export function unary<Req, Res>(
  run: (request: Req, call: UnaryCallInfo) => Promise<Res> | Res,
  options: UnaryOptions = {},
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const answer = () => {
      Promise.resolve()
        .then(() =>
          run(call.request, {
            get deadlineMs() {
              return remainingDeadline(call);
            },
          }),
        )
        .then(
          (response) => callback(null, response),
          (error: unknown) => callback(error as Error),
        );
    };
    const { turns } = options;
    if (!turns) answer();
    else
      turns.run(() => {
        if (!call.cancelled) answer();
      });
  };
}
