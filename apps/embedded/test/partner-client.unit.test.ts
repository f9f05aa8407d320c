import { randomBytes } from 'node:crypto';
import { ConfigError } from '@marquee/platform/config';
import { createLogger } from '@marquee/platform/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbeddedConfig } from '../src/config.js';
import { startEmbedded, type EmbeddedMarquee } from '../src/embedded.js';

const issuesOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadEmbeddedConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => `${issue.variable}: ${issue.message}`);
  }
};

describe('pnpm start configuration', () => {
  it('takes the demo partner client from PARTNER_CLIENT_ID and PARTNER_CLIENT_SECRET', () => {
    const config = loadEmbeddedConfig({
      PARTNER_CLIENT_ID: 'my-partner-client',
      PARTNER_CLIENT_SECRET: 'a-secret-of-24-characters',
    });
    expect(config.PARTNER_CLIENT_ID).toBe('my-partner-client');
    expect(config.PARTNER_CLIENT_SECRET).toBe('a-secret-of-24-characters');
    expect(loadEmbeddedConfig({}).PARTNER_CLIENT_ID).toBeUndefined();
  });

  it('refuses what partner-reference refuses, naming the variable and never the value', () => {
    const issues = issuesOf({ PARTNER_CLIENT_ID: 'has a space', PARTNER_CLIENT_SECRET: 'short' });
    expect(issues).toEqual([
      expect.stringMatching(/^PARTNER_CLIENT_ID: printable ASCII, no spaces/),
      expect.stringMatching(/^PARTNER_CLIENT_SECRET: must be at least 16 characters/),
    ]);
    expect(issues.join('\n')).not.toContain('has a space');
  });

  it('judges ADMIN_TOKEN as the edge does: 128 bits in hex, base64 or base64url', () => {
    expect(issuesOf({ ADMIN_TOKEN: randomBytes(24).toString('hex') })).toEqual([]);
    expect(issuesOf({ ADMIN_TOKEN: randomBytes(12).toString('hex') })).toEqual([
      expect.stringMatching(/^ADMIN_TOKEN: must hold at least 128 bits/),
    ]);
  });
});

describe('embedded default with the partner client given', () => {
  const clientId = `given-client-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(20).toString('base64url');
  let sut: EmbeddedMarquee;

  beforeAll(async () => {
    sut = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      partnerClient: { id: clientId, secret: clientSecret },
      logger: createLogger({ service: 'embedded-test', level: 'silent' }),
      env: { LOG_LEVEL: 'silent' },
    });
  }, 120_000);

  afterAll(async () => {
    await sut?.stop();
  });

  const token = (id: string, secret: string) =>
    fetch(`${sut.partnerUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: id,
        client_secret: secret,
      }),
    });

  it('starts the partner with that client and registers it with the connector', async () => {
    expect(sut.partner).toMatchObject({
      clientId,
      clientSecret,
      clientIdGenerated: false,
      clientSecretGenerated: false,
    });
    expect((await token(clientId, clientSecret)).status).toBe(200);
    expect((await token(clientId, `${clientSecret}x`)).status).toBe(401);
    // The connector authenticated with the same client: its first import landed.
    expect(sut.partner.importedEvents).toBeGreaterThan(0);
  });
});
