/**
 * The filter and sort semantics of MongoDB for the small portable subset of `StoreFilter`, so the
 * memory adapter answers `find` as the MongoDB adapter does: `null` matches a missing field, a
 * condition on an array field holds when any element satisfies it, ranges compare values of the same
 * kind only, and sort follows the BSON type order.
 */
import { invalidDocument } from './errors.js';

const OPERATORS = new Set(['$in', '$ne', '$gt', '$gte', '$lt', '$lte']);

/** A plain object whose keys all start with `$` is a set of operators, as in MongoDB. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof Date ||
    value instanceof Uint8Array
  ) {
    return false;
  }
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => key.startsWith('$'))) return false;
  for (const key of keys) {
    if (!OPERATORS.has(key))
      throw invalidDocument(`unsupported filter operator ${key}`, { operator: key });
  }
  return true;
}

// BSON comparison order of the types a store document can hold.
function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (value instanceof Uint8Array) return 6;
  if (typeof value === 'boolean') return 8;
  if (value instanceof Date) return 9;
  if (Array.isArray(value)) return 5;
  return 4;
}

// MongoDB compares strings by their UTF-8 bytes, i.e. by code point; JS `<` compares UTF-16 units.
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done === true) return cb.done === true ? 0 : -1;
    if (cb.done === true) return 1;
    const diff = (ca.value.codePointAt(0) ?? 0) - (cb.value.codePointAt(0) ?? 0);
    if (diff !== 0) return diff < 0 ? -1 : 1;
  }
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
      return 0;
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 6: {
      const ba = a as Uint8Array;
      const bb = b as Uint8Array;
      // BSON orders binary by length first, then bytes.
      if (ba.length !== bb.length) return ba.length < bb.length ? -1 : 1;
      return Buffer.compare(ba, bb);
    }
    case 8:
      return a === b ? 0 : a === false ? -1 : 1;
    case 9:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case 5: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      for (let i = 0; i < Math.min(xa.length, xb.length); i += 1) {
        const c = compareValues(xa[i], xb[i]);
        if (c !== 0) return c;
      }
      return Math.sign(xa.length - xb.length);
    }
    default: {
      // Objects: field by field in key order, names first, as BSON does.
      const ea = Object.entries(a as object);
      const eb = Object.entries(b as object);
      for (let i = 0; i < Math.min(ea.length, eb.length); i += 1) {
        const [ka, va] = ea[i] as [string, unknown];
        const [kb, vb] = eb[i] as [string, unknown];
        const c = compareValues(va, vb) || compareStrings(ka, kb);
        if (c !== 0) return c;
      }
      return Math.sign(ea.length - eb.length);
    }
  }
}

/** BSON equality: same kind and same value; objects compare key order too, numbers ignore int/double. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  return typeRank(a) === typeRank(b) && compareValues(a, b) === 0 && sameKeys(a, b);
}

function sameKeys(a: unknown, b: unknown): boolean {
  if (typeRank(a) !== 4) return true;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((key, i) => key === kb[i]);
}

// The candidates a condition is tested against: the value itself and, for an array, each element.
function candidates(value: unknown): unknown[] {
  return Array.isArray(value) ? [value, ...value] : [value];
}

function equalsCondition(fieldValue: unknown, expected: unknown): boolean {
  // Missing and null are the same to MongoDB's equality.
  const actual = fieldValue === undefined ? null : fieldValue;
  return candidates(actual).some((candidate) => valuesEqual(candidate, expected));
}

function rangeCondition(
  fieldValue: unknown,
  bound: unknown,
  accept: (c: number) => boolean,
): boolean {
  const actual = fieldValue === undefined ? null : fieldValue;
  return candidates(actual).some(
    (candidate) =>
      typeRank(candidate) === typeRank(bound) && accept(compareValues(candidate, bound)),
  );
}

export function matchesCondition(fieldValue: unknown, condition: unknown): boolean {
  if (!isOperatorObject(condition)) return equalsCondition(fieldValue, condition);
  for (const [op, operand] of Object.entries(condition)) {
    let ok: boolean;
    switch (op) {
      case '$in':
        if (!Array.isArray(operand)) throw invalidDocument('$in needs an array');
        ok = operand.some((expected: unknown) => equalsCondition(fieldValue, expected));
        break;
      case '$ne':
        ok = !equalsCondition(fieldValue, operand);
        break;
      case '$gt':
        ok = rangeCondition(fieldValue, operand, (c) => c > 0);
        break;
      case '$gte':
        ok = rangeCondition(fieldValue, operand, (c) => c >= 0);
        break;
      case '$lt':
        ok = rangeCondition(fieldValue, operand, (c) => c < 0);
        break;
      default:
        ok = rangeCondition(fieldValue, operand, (c) => c <= 0);
    }
    if (!ok) return false;
  }
  return true;
}

export function matchesFilter(
  doc: Record<string, unknown>,
  filter: Record<string, unknown>,
): boolean {
  return Object.entries(filter).every(
    ([field, condition]) => condition === undefined || matchesCondition(doc[field], condition),
  );
}

/** Sort comparator over the given fields, then `id` ascending (both adapters break ties the same way). */
export function sortComparator(
  sort: Record<string, 1 | -1 | undefined>,
): (a: Record<string, unknown>, b: Record<string, unknown>) => number {
  const keys = Object.entries(sort).filter(
    (entry): entry is [string, 1 | -1] => entry[1] !== undefined,
  );
  return (a, b) => {
    for (const [field, direction] of keys) {
      const c = compareValues(sortKey(a[field], direction), sortKey(b[field], direction));
      if (c !== 0) return c * direction;
    }
    return compareStrings(a.id as string, b.id as string);
  };
}

// MongoDB sorts an array field by its smallest element ascending and its largest descending.
function sortKey(value: unknown, direction: 1 | -1): unknown {
  if (!Array.isArray(value)) return value === undefined ? null : value;
  if (value.length === 0) return null;
  return value.reduce((best: unknown, item: unknown) =>
    compareValues(item, best) * direction < 0 ? item : best,
  );
}
