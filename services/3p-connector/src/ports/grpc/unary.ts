import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { CallOptions } from '../../app/ports.js';

type Handler<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

/** The time left before the caller's deadline, when it set one. */
export function remainingDeadline(call: { getDeadline(): Date | number }): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - Date.now());
}

/** Runs a use case and answers through the callback (the platform's server maps error kinds). */
export function unary<Req, Res>(
  run: (request: Req, options: CallOptions) => Promise<Res> | Res,
): Handler<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => run(call.request, { deadlineMs: remainingDeadline(call) }))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(error as Error),
      );
  };
}
