import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';

export type Handler<Req, Res> = (
  call: ServerUnaryCall<Req, Res>,
  callback: sendUnaryData<Res>,
) => void;

/** Runs a use case and answers through the callback (the platform's server maps error kinds). */
export function unary<Req, Res>(run: (request: Req) => Promise<Res> | Res): Handler<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => run(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(error as Error),
      );
  };
}
