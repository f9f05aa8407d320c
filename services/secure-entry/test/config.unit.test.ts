import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { consumerGroup, loadSecureEntryConfig } from '../src/config.js';

const k = () => randomBytes(32).toString('base64');

describe('secure-entry config', () => {
  it('accepts a key ring and defaults the rest', () => {
    const config = loadSecureEntryConfig({
      SECURE_ENTRY_TOKEN_KEYS: `k2:${k()},k1:${k()}`,
      SECURE_ENTRY_SECRET_KEY: k(),
    });
    expect(config.TOKEN_REFRESH_HOURS_BEFORE_EVENT).toBe(20);
    expect(config.DELAYED_DELIVERY_HOURS_BEFORE_EVENT).toBe(0);
  });

  it('refuses malformed rings and duplicate ids without echoing the keys', () => {
    const secret = k();
    for (const ring of [`k1:${secret.slice(4)}`, `k1:${secret},k1:${k()}`, secret, 'bad id!:x']) {
      let message = '';
      try {
        loadSecureEntryConfig({ SECURE_ENTRY_TOKEN_KEYS: ring });
      } catch (error) {
        message = String((error as Error).message);
      }
      expect(message).toMatch(/SECURE_ENTRY_TOKEN_KEYS/);
      expect(message).not.toContain(secret.slice(4, 20));
    }
  });

  it('requires both keys in production', () => {
    expect(() =>
      loadSecureEntryConfig({
        NODE_ENV: 'production',
        KAFKA_BROKERS: 'k:9092',
        MONGO_URL: 'mongodb://m',
      }),
    ).toThrow(/SECURE_ENTRY_SECRET_KEY|SECURE_ENTRY_TOKEN_KEYS/);
  });

  it('requires the contact key ring in production, and refuses a malformed one', () => {
    const production = {
      NODE_ENV: 'production',
      KAFKA_BROKERS: 'k:9092',
      MONGO_URL: 'mongodb://m',
      SECURE_ENTRY_TOKEN_KEYS: `k1:${k()}`,
      SECURE_ENTRY_SECRET_KEY: k(),
    };
    expect(() => loadSecureEntryConfig(production)).toThrow(/ORDER_CONTACT_KEYS/);
    expect(
      loadSecureEntryConfig({ ...production, ORDER_CONTACT_KEYS: `c1:${k()}` }).ORDER_CONTACT_KEYS,
    ).toMatch(/^c1:/);
    expect(() => loadSecureEntryConfig({ ORDER_CONTACT_KEYS: 'c1:short' })).toThrow(
      /ORDER_CONTACT_KEYS/,
    );
  });

  it('ties the consumer group to the database unless one is given', () => {
    expect(consumerGroup(loadSecureEntryConfig({}))).toBe('secure-entry');
    expect(consumerGroup(loadSecureEntryConfig({ MONGO_DB: 'e2e1234_secure_entry' }))).toBe(
      'secure-entry.e2e1234_secure_entry',
    );
    expect(
      consumerGroup(loadSecureEntryConfig({ MONGO_DB: 'other', CONSUMER_GROUP: 'entry-blue' })),
    ).toBe('entry-blue');
  });
});
