import { describe, expect, it } from 'vitest';
import { validateRegistration, type Registration } from '../../src/domain/partner.js';

const registration: Registration = {
  name: 'Ticket Hub',
  baseUrl: 'https://partner.example/v1',
  authUrl: 'https://partner.example/oauth/token',
  clientId: 'client-1',
  clientSecret: 'secret-1',
  venues: ['V-1'],
};

const refusal = (change: Partial<Registration>) => {
  try {
    validateRegistration({ ...registration, ...change });
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('validateRegistration counts characters, as the API documents its lengths', () => {
  it('takes 200 characters of a name even when they are outside the BMP (two UTF-16 units each)', () => {
    expect(refusal({ name: '🎫'.repeat(200) })).toBeUndefined();
    expect(refusal({ name: '🎫'.repeat(201) })).toBe('name must have 1 to 200 characters');
  });

  it('does the same for the client id and the client secret', () => {
    expect(refusal({ clientId: '🎫'.repeat(256) })).toBeUndefined();
    expect(refusal({ clientId: '🎫'.repeat(257) })).toBe('client_id must have 1 to 256 characters');
    expect(refusal({ clientSecret: '🎫'.repeat(512) })).toBeUndefined();
    expect(refusal({ clientSecret: '🎫'.repeat(513) })).toBe(
      'client_secret must have 1 to 512 characters',
    );
  });

  it('still refuses a name of blanks only', () => {
    expect(refusal({ name: '   ' })).toBe('name must have 1 to 200 characters');
  });
});
