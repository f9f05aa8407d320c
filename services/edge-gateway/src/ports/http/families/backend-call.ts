import type { FastifyReply } from 'fastify';
import type { ApiFamily, FamilyError } from './family.js';
import { sendFamilyError } from './register-family.js';

/**
 * A family's reading of a back end's error (a gRPC-derived kind such as `not_found`, see
 * @marquee/platform/errors) as its own error; undefined for anything that is not one.
 */
export type BackendErrorMapping = (error: unknown) => FamilyError | undefined;

/** What a {@link backendCall} answers instead of a result once it has sent the family's error. */
export const ANSWERED: unique symbol = Symbol('answered');
export type Answered = typeof ANSWERED;

/**
 * Runs a route's back-end call with the family's error mapping: what the mapping reads (an unknown
 * id: 404, a refused state: 409, a back end down: 503...) is sent at once in the family's body and
 * {@link ANSWERED} comes back instead of the result ({@link wasAnswered} tells them apart); the
 * route then returns `reply`. Anything else is thrown on to the scope's error handler (a bug: 500).
 *
 * Not the reply itself: a fastify reply is a thenable (its `then` waits for the response to end
 * and resolves with nothing), so an async function returning it resolves to `undefined`, and a
 * route reading that as a result would throw after the refusal was sent.
 *
 * For families whose reading of back-end errors differs from the default of the scope's error
 * handler (`toFamilyError`): the commerce API's `resource_exhausted` is "no tickets", not a quota.
 */
export function backendCall(family: ApiFamily, mapError: BackendErrorMapping) {
  return async <T>(reply: FastifyReply, call: () => Promise<T>): Promise<T | Answered> => {
    try {
      return await call();
    } catch (error) {
      const mapped = mapError(error);
      if (!mapped) throw error;
      sendFamilyError(reply, family, mapped);
      return ANSWERED;
    }
  };
}

/** Whether a {@link backendCall}'s answer is {@link ANSWERED} (its error sent), not a result. */
export function wasAnswered<T>(answer: T | Answered): answer is Answered {
  return answer === ANSWERED;
}
