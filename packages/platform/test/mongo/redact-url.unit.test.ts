import { describe, expect, it } from 'vitest';
import { mongoUrlPassword, redactMongoUrl } from '../../src/mongo/redact-url.js';

describe('redactMongoUrl', () => {
  it.each([
    ['mongodb://app:s3cr%40t@db:27017/marquee', 'mongodb://app:***@db:27017/marquee'],
    [
      'mongodb+srv://app:pw@cluster.example.net/?retryWrites=true',
      'mongodb+srv://app:***@cluster.example.net/?retryWrites=true',
    ],
    [
      'mongodb://app:pw@h1:1,h2:2,h3:3/db?replicaSet=rs0',
      'mongodb://app:***@h1:1,h2:2,h3:3/db?replicaSet=rs0',
    ],
    ['mongodb://127.0.0.1:27117', 'mongodb://127.0.0.1:27117'],
    ['mongodb://onlyuser@db/x', 'mongodb://onlyuser@db/x'],
    [
      'mongodb://db/x?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:abc&tlsCertificateKeyFilePassword=k',
      'mongodb://db/x?authMechanism=MONGODB-AWS&authMechanismProperties=***&tlsCertificateKeyFilePassword=***',
    ],
  ])('%s → %s', (url, expected) => {
    expect(redactMongoUrl(url)).toBe(expected);
  });

  it('finds the password so driver messages can be scrubbed', () => {
    expect(mongoUrlPassword('mongodb://app:s3cr%40t@db/x')).toBe('s3cr%40t');
    expect(mongoUrlPassword('mongodb://db/x')).toBeUndefined();
    expect(mongoUrlPassword('mongodb://app:@db/x')).toBeUndefined();
  });
});
