import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/index.js';
import { toPortable } from '../../src/store/portable.js';

function refusal(value: unknown): { message: string; path: unknown } {
  try {
    toPortable(value);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.kind).toBe('invalid_argument');
    return { message: appError.message, path: (appError.details as { path?: unknown }).path };
  }
  throw new Error('toPortable accepted the value');
}

describe('toPortable', () => {
  it('copies plain data, drops undefined properties and nulls undefined array items', () => {
    const at = new Date('2026-11-30T10:00:00Z');
    const bytes = new Uint8Array([1, 2, 3]);
    const source = { a: 1, b: 'x', c: [1, undefined, { d: at }], e: undefined, f: bytes, g: null };
    const copy = toPortable(source) as Record<string, unknown>;
    expect(copy).toEqual({ a: 1, b: 'x', c: [1, null, { d: at }], f: Buffer.from(bytes), g: null });
    expect('e' in copy).toBe(false);
    expect((copy.c as unknown[])[2]).not.toBe(source.c[2]);
    expect(((copy.c as unknown[])[2] as { d: Date }).d).not.toBe(at);
  });

  it('names the path of what it refuses', () => {
    expect(refusal({ lines: [{ price: { 'a.b': 1 } }] })).toEqual({
      message:
        '$.lines[0].price: key "a.b" cannot be stored (empty, contains "." or starts with "$")',
      path: '$.lines[0].price',
    });
    expect(refusal({ a: [[1]] })).toEqual({
      message: '$.a[0]: arrays inside arrays cannot be stored',
      path: '$.a',
    });
    expect(refusal({ a: { b: [1, 2n] } })).toEqual({
      message: '$.a.b[1]: a bigint cannot be stored',
      path: '$.a.b[1]',
    });
    expect(refusal({ when: new Date(Number.NaN) })).toMatchObject({
      message: '$.when: invalid date',
    });
    expect(refusal({ map: new Map() })).toMatchObject({
      message: '$.map: only plain objects can be stored',
    });
  });
});
