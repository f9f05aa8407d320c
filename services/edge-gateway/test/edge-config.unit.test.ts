import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadEdgeGatewayConfig } from '../src/config.js';

describe('edge-gateway configuration', () => {
  it('takes an admin token of real entropy (24 random bytes in base64 and up)', () => {
    const token = randomBytes(24).toString('base64url');
    expect(loadEdgeGatewayConfig({ ADMIN_TOKEN: token }).ADMIN_TOKEN).toBe(token);
  });

  it('refuses short or patterned admin tokens, naming the variable and never the value', () => {
    for (const weak of ['ci-admin-token', 'test-admin-token-0123456789', 'ab'.repeat(20)]) {
      let message = '';
      try {
        loadEdgeGatewayConfig({ ADMIN_TOKEN: weak });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/ADMIN_TOKEN: must be/);
      expect(message).not.toContain(weak);
    }
  });

  it('trusts no proxy by default: the peer is the client', () => {
    expect(loadEdgeGatewayConfig({}).TRUSTED_PROXIES).toEqual([]);
    expect(loadEdgeGatewayConfig({ TRUSTED_PROXIES: 'none' }).TRUSTED_PROXIES).toEqual([]);
  });
});
