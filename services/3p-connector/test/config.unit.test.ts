import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadThreePConnectorConfig } from '../src/config.js';

describe('loadThreePConnectorConfig', () => {
  it('defaults the schedules and bounds', () => {
    const sut = loadThreePConnectorConfig({});
    expect(sut).toMatchObject({
      IMPORT_INTERVAL_MS: 300_000,
      HEALTH_INTERVAL_MS: 30_000,
      PARTNER_CALL_TIMEOUT_MS: 5_000,
      QUEUE_POLL_MS: 1_000,
      QUEUE_MAX_BACKOFF_MS: 300_000,
      PARTNER_ALLOWED_HOSTS: '',
      PARTNER_MAX_RESPONSE_BYTES: 8 * 1024 * 1024,
    });
    expect(sut.PARTNER_CREDENTIALS_KEY).toBeUndefined();
  });

  it('requires the credentials key in production', () => {
    expect(() => loadThreePConnectorConfig({ NODE_ENV: 'production' })).toThrow(
      /PARTNER_CREDENTIALS_KEY/,
    );
    const key = randomBytes(32).toString('base64');
    expect(
      loadThreePConnectorConfig({ NODE_ENV: 'production', PARTNER_CREDENTIALS_KEY: key })
        .PARTNER_CREDENTIALS_KEY,
    ).toBe(key);
  });

  it('takes a comma-separated ring of keys to rotate, the first sealing', () => {
    const ring = `${randomBytes(32).toString('base64')},${randomBytes(32).toString('base64')}`;
    expect(
      loadThreePConnectorConfig({ PARTNER_CREDENTIALS_KEY: ring }).PARTNER_CREDENTIALS_KEY,
    ).toBe(ring);
  });

  it('refuses a key that is not 32 bytes, without echoing it', () => {
    const key = randomBytes(16).toString('base64');
    let message = '';
    try {
      loadThreePConnectorConfig({ PARTNER_CREDENTIALS_KEY: key });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/PARTNER_CREDENTIALS_KEY/);
    expect(message).not.toContain(key);
  });

  it('reads the partner egress settings and refuses a malformed range', () => {
    expect(
      loadThreePConnectorConfig({
        PARTNER_ALLOWED_HOSTS: '127.0.0.1, partner-reference 10.20.0.0/16',
        PARTNER_MAX_RESPONSE_BYTES: '65536',
      }),
    ).toMatchObject({
      PARTNER_ALLOWED_HOSTS: '127.0.0.1, partner-reference 10.20.0.0/16',
      PARTNER_MAX_RESPONSE_BYTES: 65_536,
    });
    expect(() => loadThreePConnectorConfig({ PARTNER_ALLOWED_HOSTS: '10.0.0.0/99' })).toThrow(
      /PARTNER_ALLOWED_HOSTS/,
    );
  });
});
