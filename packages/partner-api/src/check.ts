import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// RFC 3339 date-time, as the `DateTime` schema means it (a zone is required).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * TypeBox's `Value.Check` fails every value of a `format` it has no checker for ("Unknown format"),
 * and the contract's `DateTime` has `format: 'date-time'`: registered on first use (unless the
 * process already registered one), so answers with dates can pass.
 */
function ensureFormats(): void {
  if (!FormatRegistry.Has('date-time'))
    FormatRegistry.Set(
      'date-time',
      (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
    );
}

export type AnswerCheck<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * Checks a decoded JSON answer against its schema: the connector refuses an answer that does not
 * match the contract (a partner fault, never trusted blindly), the conformance kit reports it.
 * At most ten error lines, each naming the JSON pointer.
 */
export function checkAnswer<S extends TSchema>(schema: S, value: unknown): AnswerCheck<Static<S>> {
  ensureFormats();
  if (Value.Check(schema, value)) return { ok: true, value: value as Static<S> };
  const errors: string[] = [];
  for (const error of Value.Errors(schema, value)) {
    errors.push(`${error.path || '/'}: ${error.message}`);
    if (errors.length === 10) break;
  }
  return { ok: false, errors };
}
