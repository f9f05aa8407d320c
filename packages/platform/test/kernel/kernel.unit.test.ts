import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONFLICT_ATTEMPTS,
  ERROR_KINDS,
  errorKindOf,
  isErrorKind,
  isTransient,
  isWriteRace,
  retryingConflicts,
  systemClock,
  backoffMs,
  withoutVersion,
} from '../../src/kernel/index.js';

const failure = (kind: string) => Object.assign(new Error(kind), { kind });

describe('error kinds', () => {
  it('reads the kind of any error that carries one of the vocabulary', () => {
    expect(errorKindOf(failure('not_found'))).toBe('not_found');
    expect(errorKindOf({ kind: 'aborted', message: 'plain object' })).toBe('aborted');
    expect(errorKindOf(failure('no_such_kind'))).toBeUndefined();
    expect(errorKindOf(new Error('none'))).toBeUndefined();
    expect(errorKindOf('aborted')).toBeUndefined();
    expect(errorKindOf(null)).toBeUndefined();
    expect(ERROR_KINDS.every(isErrorKind)).toBe(true);
    expect(isErrorKind('nope')).toBe(false);
  });

  it('calls transient what a caller may try again', () => {
    for (const kind of ['unavailable', 'deadline_exceeded', 'aborted', 'internal'])
      expect(isTransient(failure(kind))).toBe(true);
    expect(isTransient(new Error('a fault without a kind'))).toBe(true);
    expect(isTransient(undefined)).toBe(true);
    for (const kind of ['invalid_argument', 'not_found', 'failed_precondition', 'already_exists'])
      expect(isTransient(failure(kind))).toBe(false);
    expect(isTransient(failure('partner_specific'))).toBe(false);
  });
});

describe('systemClock', () => {
  it('tells the time of the machine', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('retryingConflicts', () => {
  it('writes again after a lost race, reading again in between', async () => {
    const seen: string[] = [];
    const result = await retryingConflicts(
      async (attempt) => {
        seen.push(`write ${attempt}`);
        if (attempt < 3) throw failure('aborted');
        return 'written';
      },
      { beforeRetry: (_error, attempt) => void seen.push(`reread after ${attempt}`) },
    );
    expect(result).toBe('written');
    expect(seen).toEqual(['write 1', 'reread after 1', 'write 2', 'reread after 2', 'write 3']);
  });

  it('gives up with the last conflict after the default number of attempts', async () => {
    let writes = 0;
    const conflict = failure('aborted');
    await expect(
      retryingConflicts(async () => {
        writes += 1;
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(writes).toBe(DEFAULT_CONFLICT_ATTEMPTS);
  });

  it('takes another limit and another test of a conflict', async () => {
    let writes = 0;
    await expect(
      retryingConflicts(
        async () => {
          writes += 1;
          throw failure('already_exists');
        },
        { attempts: 3, isConflict: (error) => errorKindOf(error) === 'already_exists' },
      ),
    ).rejects.toThrow('already_exists');
    expect(writes).toBe(3);
    await expect(retryingConflicts(async () => 1, { attempts: 0 })).rejects.toThrow(RangeError);
  });

  it('throws any other error at once, and what beforeRetry throws', async () => {
    let writes = 0;
    await expect(
      retryingConflicts(async () => {
        writes += 1;
        throw failure('not_found');
      }),
    ).rejects.toThrow('not_found');
    expect(writes).toBe(1);
    const gone = new Error('the record is gone');
    await expect(
      retryingConflicts(
        async () => {
          throw failure('aborted');
        },
        {
          beforeRetry: async () => {
            throw gone;
          },
        },
      ),
    ).rejects.toBe(gone);
  });

  it('retries a racing insert too when isConflict is isWriteRace', async () => {
    expect(isWriteRace(failure('aborted'))).toBe(true);
    expect(isWriteRace(failure('already_exists'))).toBe(true);
    expect(isWriteRace(failure('not_found'))).toBe(false);
    expect(isWriteRace(new Error('no kind'))).toBe(false);
    const kinds = ['already_exists', 'aborted'];
    const result = await retryingConflicts(
      async (attempt) => {
        const kind = kinds[attempt - 1];
        if (kind) throw failure(kind);
        return attempt;
      },
      { isConflict: isWriteRace },
    );
    expect(result).toBe(3);
  });
});

describe('backoffMs', () => {
  it('starts at the first pause and doubles with each failure, up to the cap', () => {
    const pauses = [1, 2, 3, 4, 5, 6].map((failures) =>
      backoffMs(failures, { firstMs: 1_000, maxMs: 10_000 }),
    );
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('stays at the cap for any number of failures, and at the first pause below one', () => {
    expect(backoffMs(10_000, { firstMs: 500, maxMs: 300_000 })).toBe(300_000);
    expect(backoffMs(Number.POSITIVE_INFINITY, { firstMs: 500, maxMs: 300_000 })).toBe(300_000);
    expect(backoffMs(Number.NaN, { firstMs: 500, maxMs: 300_000 })).toBe(500);
    expect(backoffMs(0, { firstMs: 500, maxMs: 300_000 })).toBe(500);
    expect(backoffMs(40, { firstMs: 100, maxMs: Number.POSITIVE_INFINITY })).toBe(100 * 2 ** 39);
  });
});

describe('withoutVersion', () => {
  it('answers the record without its version, leaving the stored one as it was', () => {
    const stored = { id: 'c1', version: 3, state: 'HELD' };
    expect(withoutVersion(stored)).toEqual({ id: 'c1', state: 'HELD' });
    expect(stored.version).toBe(3);
  });
});
