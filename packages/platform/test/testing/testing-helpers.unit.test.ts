import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeIntegration, integrationEnv } from '../../src/testing/integration-env.js';
import { uniqueName } from '../../src/testing/unique-name.js';
import { waitFor } from '../../src/testing/wait-for.js';

describe('waitFor', () => {
  it('returns the first truthy value of the probe', async () => {
    let calls = 0;

    const sut = await waitFor(() => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1 });

    expect(sut).toEqual({ calls: 3 });
  });

  it('treats a throwing probe as not yet, and names what it waited for on timeout', async () => {
    const sut = waitFor(
      () => {
        throw new Error('still 0 rows');
      },
      { timeoutMs: 30, intervalMs: 5, description: 'the order row' },
    );

    await expect(sut).rejects.toThrow(
      /the order row not met within 30 ms; last error: still 0 rows/,
    );
  });
});

describe('uniqueName', () => {
  it('gives distinct names made only of characters legal in topics, groups and databases', () => {
    const sut = new Set(Array.from({ length: 200 }, () => uniqueName('Event Changed/.v1')));

    expect(sut.size).toBe(200);
    for (const name of sut) expect(name).toMatch(/^event-changed-v1-[a-z0-9]+-[0-9a-f]{6}$/);
  });
});

describe('integrationEnv', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads the environment when nothing was provided, splitting the broker list', () => {
    vi.stubEnv('KAFKA_BROKERS', ' 127.0.0.1:19092, 127.0.0.1:29092 ');
    vi.stubEnv('KAFKA_SASL_BROKERS', '');
    vi.stubEnv('MONGO_URL', 'mongodb://127.0.0.1:27117');
    vi.stubEnv('CI', '');
    vi.stubEnv('MARQUEE_TEST_STRICT', '');

    expect(integrationEnv()).toEqual({
      kafka: { brokers: ['127.0.0.1:19092', '127.0.0.1:29092'] },
      kafkaBrokers: ['127.0.0.1:19092', '127.0.0.1:29092'],
      mongoUrl: 'mongodb://127.0.0.1:27117',
    });
  });

  it("logs in on the authenticated listener as the broker's admin user when there is one", () => {
    const credentials = mkdtempSync(join(tmpdir(), 'kafka-credentials-'));
    writeFileSync(join(credentials, 'admin'), 'admin-secret\n');
    vi.stubEnv('KAFKA_BROKERS', '127.0.0.1:19092');
    vi.stubEnv('KAFKA_SASL_BROKERS', '127.0.0.1:19094');
    vi.stubEnv('KAFKA_CREDENTIALS_DIR', credentials);
    vi.stubEnv('MONGO_URL', 'mongodb://127.0.0.1:27117');

    expect(integrationEnv()).toEqual({
      kafka: {
        brokers: ['127.0.0.1:19094'],
        sasl: { mechanism: 'scram-sha-512', username: 'admin', password: 'admin-secret' },
      },
      kafkaBrokers: ['127.0.0.1:19094'],
      mongoUrl: 'mongodb://127.0.0.1:27117',
    });
  });

  it('refuses the open listener under CI=true: the tier runs authenticated there', () => {
    vi.stubEnv('KAFKA_BROKERS', '127.0.0.1:19092');
    vi.stubEnv('KAFKA_SASL_BROKERS', '');
    vi.stubEnv('MONGO_URL', 'mongodb://127.0.0.1:27117');
    vi.stubEnv('CI', 'true');

    expect(() => integrationEnv()).toThrow(/authenticated Kafka listener \(a skip is a failure/);
  });

  it('is undefined unless both Kafka and Mongo are there', () => {
    vi.stubEnv('KAFKA_BROKERS', '127.0.0.1:19092');
    vi.stubEnv('MONGO_URL', '');

    expect(integrationEnv()).toBeUndefined();
  });

  it('makes a suite without infrastructure fail under CI=true instead of skipping', () => {
    vi.stubEnv('KAFKA_BROKERS', '');
    vi.stubEnv('MONGO_URL', '');
    vi.stubEnv('CI', 'true');
    const body = vi.fn();

    expect(() => describeIntegration('needs kafka', body)).toThrow(/needs kafka.*CI=true/);
    expect(body).not.toHaveBeenCalled();
  });

  it('makes it fail in pnpm test too (MARQUEE_TEST_STRICT=1), outside CI', () => {
    vi.stubEnv('KAFKA_BROKERS', '');
    vi.stubEnv('MONGO_URL', '');
    vi.stubEnv('CI', '');
    vi.stubEnv('MARQUEE_TEST_STRICT', '1');
    const body = vi.fn();

    expect(() => describeIntegration('needs kafka', body)).toThrow(
      /needs kafka.*MARQUEE_TEST_STRICT=1/,
    );
    expect(body).not.toHaveBeenCalled();
  });
});
