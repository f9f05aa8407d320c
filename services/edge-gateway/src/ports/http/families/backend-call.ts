import type { FastifyReply } from 'fastify';
import type { ApiFamily, FamilyError } from './family.js';
import { sendFamilyError } from './register-family.js';

/**
 * A family's reading of a back end's error (a gRPC-derived kind such as `not_found`, see
 * @marquee/platform/errors) as its own error; undefined for anything that is not one.
 */
export type BackendErrorMapping = (error: unknown) => FamilyError | undefined;

/**
 * Runs a route's back-end call with the family's error mapping: what the mapping reads (an unknown
 * id: 404, a refused state: 409, a back end down: 503...) is sent at once in the family's body and
 * the reply comes back instead of the result ({@link wasAnswered} tells them apart); anything else
 * is thrown on to the scope's error handler (a bug: 500).
 *
 * For families whose reading of back-end errors differs from the default of the scope's error
 * handler (`toFamilyError`): the commerce API's `resource_exhausted` is "no tickets", not a quota.
 */
export function backendCall(family: ApiFamily, mapError: BackendErrorMapping) {
  return async <T>(reply: FastifyReply, call: () => Promise<T>): Promise<T | FastifyReply> => {
    try {
      return await call();
    } catch (error) {
      const mapped = mapError(error);
      if (!mapped) throw error;
      return sendFamilyError(reply, family, mapped);
    }
  };
}

/** Whether a {@link backendCall}'s answer is the reply its error was sent on (not a result). */
export function wasAnswered<T>(
  answer: T | FastifyReply,
  reply: FastifyReply,
): answer is FastifyReply {
  return answer === reply;
}
