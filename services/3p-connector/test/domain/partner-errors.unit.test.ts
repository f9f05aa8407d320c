import { describe, expect, it } from 'vitest';
import {
  cancelAlreadyDone,
  kindOfPartnerError,
  releaseAlreadyDone,
} from '../../src/domain/partner-errors.js';

describe('kindOfPartnerError', () => {
  it.each([
    [[303, 306, 307, 301, 316], 'resource_exhausted'],
    [[311, 312, 313, 315, 305, 308, 309, 310, 317, 318], 'failed_precondition'],
    [[314, 206, 108, 102], 'not_found'],
    [[1, 101, 105, 114, 201, 213, 216], 'invalid_argument'],
  ] as const)('maps %j to %s', (ids, kind) => {
    for (const id of ids) expect(kindOfPartnerError(410, id)).toBe(kind);
  });

  it('falls back on the HTTP status when the body has no id', () => {
    expect(kindOfPartnerError(500, undefined)).toBe('unavailable');
    expect(kindOfPartnerError(503, 2)).toBe('unavailable');
    expect(kindOfPartnerError(400, undefined)).toBe('invalid_argument');
    expect(kindOfPartnerError(410, undefined)).toBe('failed_precondition');
  });

  it('counts released/expired bookings and cancelled orders as done', () => {
    expect(releaseAlreadyDone(311) && releaseAlreadyDone(312)).toBe(true);
    expect(releaseAlreadyDone(314)).toBe(false);
    expect(cancelAlreadyDone(315)).toBe(true);
  });
});
