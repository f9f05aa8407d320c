import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * Checks a decoded JSON answer against its schema: the connector refuses an answer that does not
 * match the contract (a partner fault, never trusted blindly), the conformance kit reports it.
 * At most ten error lines, each naming the JSON pointer.
 */
export function checkAnswer<S extends TSchema>(schema: S, value: unknown): AnswerCheck<Static<S>> {
  if (Value.Check(schema, value)) return { ok: true, value: value as Static<S> };
  const errors: string[] = [];
  for (const error of Value.Errors(schema, value)) {
    errors.push(`${error.path || '/'}: ${error.message}`);
    if (errors.length === 10) break;
  }
  return { ok: false, errors };
}
