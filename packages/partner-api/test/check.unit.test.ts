import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../src/check.js';
import {
  AvailabilityAnswer,
  BookingRequest,
  HealthcheckResult,
  TokenResponse,
} from '../src/schemas.js';
import { Value } from '@sinclair/typebox/value';

describe('checkAnswer', () => {
  it('accepts an answer of the contract, extra fields included', () => {
    const sut = checkAnswer(TokenResponse, {
      access_token: 't',
      token_type: 'Bearer',
      expires_in: '3600',
      scope: 'check:3p-system',
      extra: 1,
    });
    expect(sut.ok).toBe(true);
  });

  it('names what is wrong: expires_in must be a string of digits', () => {
    const sut = checkAnswer(TokenResponse, {
      access_token: 't',
      token_type: 'Bearer',
      expires_in: 3600,
      scope: '',
    });
    expect(sut).toMatchObject({ ok: false });
    expect(sut.ok ? [] : sut.errors.join('\n')).toContain('/expires_in');
  });

  it('checks date-time fields: a zoned ISO 8601 date passes, anything else is named', () => {
    const answer = (last_modification: string) => ({
      event_id: 'E1',
      last_modification,
      areas: [],
    });
    expect(checkAnswer(AvailabilityAnswer, answer('2030-01-01T19:30:00.000Z')).ok).toBe(true);
    expect(checkAnswer(AvailabilityAnswer, answer('2030-01-01T19:30:00+02:00')).ok).toBe(true);
    const sut = checkAnswer(AvailabilityAnswer, answer('tomorrow'));
    expect(sut.ok ? [] : sut.errors.join('\n')).toContain('/last_modification');
  });

  it('refuses a healthcheck without an id', () => {
    expect(checkAnswer(HealthcheckResult, { message: 'ok' }).ok).toBe(false);
  });

  it('keeps booking requests closed: an unknown field is refused', () => {
    const base = {
      request: {
        event_id: 'e1',
        language: 'en-us',
        channel_info: { channel_type: 'INTERNET' },
        tickets: [{ price_type_id: 'A', quantity: 2 }],
      },
    };
    expect(Value.Check(BookingRequest, base)).toBe(true);
    expect(Value.Check(BookingRequest, { request: { ...base.request, surprise: true } })).toBe(
      false,
    );
  });
});
