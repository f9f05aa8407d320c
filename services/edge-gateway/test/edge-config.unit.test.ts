import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadEdgeGatewayConfig } from '../src/config.js';

describe('edge-gateway configuration', () => {
  it('takes an admin token of 128 bits or more in hex, base64 or base64url', () => {
    for (const token of [
      randomBytes(24).toString('base64url'),
      randomBytes(16).toString('base64'),
      randomBytes(16).toString('hex'),
      randomBytes(24).toString('hex'), // openssl rand -hex 24, whatever characters it happens to hold
    ]) {
      expect(loadEdgeGatewayConfig({ ADMIN_TOKEN: token }).ADMIN_TOKEN).toBe(token);
    }
  });

  it('refuses weaker or patterned admin tokens, naming the variable and the rule, never the value', () => {
    for (const weak of [
      'ci-admin-token',
      randomBytes(12).toString('hex'),
      'ab'.repeat(20),
      'not a token, a sentence',
    ]) {
      let message = '';
      try {
        loadEdgeGatewayConfig({ ADMIN_TOKEN: weak });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(
        /ADMIN_TOKEN: must (hold at least 128 bits|be random|be a random value)/,
      );
      expect(message).not.toContain(weak);
    }
  });

  it('trusts no proxy by default: the peer is the client', () => {
    expect(loadEdgeGatewayConfig({}).TRUSTED_PROXIES).toEqual([]);
    expect(loadEdgeGatewayConfig({ TRUSTED_PROXIES: 'none' }).TRUSTED_PROXIES).toEqual([]);
  });
});
