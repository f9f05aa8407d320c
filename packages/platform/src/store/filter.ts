import { invalidDocument } from './errors.js';
import { isOperatorObject } from './memory-query.js';
import { toPortable } from './portable.js';

/**
 * Validates a `StoreFilter` and copies its values into stored form (dates, bytes), the same way for
 * both adapters. Fields are top-level names; operators are the portable subset only.
 */
export function normalizeFilter(filter: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    checkFieldName(field);
    if (!isOperatorObject(condition)) {
      out[field] = toPortable(condition, `filter.${field}`);
      continue;
    }
    const operators: Record<string, unknown> = {};
    for (const [op, operand] of Object.entries(condition)) {
      if (operand === undefined) continue;
      if (op === '$in') {
        if (!Array.isArray(operand))
          throw invalidDocument(`filter.${field}.$in needs an array`, { field });
        operators[op] = operand.map((value: unknown, i) =>
          toPortable(value, `filter.${field}.$in[${i}]`),
        );
      } else {
        operators[op] = toPortable(operand, `filter.${field}.${op}`);
      }
    }
    out[field] = operators;
  }
  return out;
}

export function checkFieldName(field: string): void {
  if (field === '' || field.includes('.') || field.startsWith('$')) {
    throw invalidDocument(`"${field}" is not a top-level field name`, { field });
  }
}
