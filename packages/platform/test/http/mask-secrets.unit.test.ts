import { describe, expect, it } from 'vitest';
import { maskSecretQueryParams } from '../../src/http/mask-secrets.js';

describe('maskSecretQueryParams', () => {
  it('masks credentials in the query and the /oauth/info path, keeping the rest', () => {
    expect(maskSecretQueryParams('/partners/v1/orders?order_token=abc123&apikey=k&x=1')).toBe(
      '/partners/v1/orders?order_token=[REDACTED]&apikey=[REDACTED]&x=1',
    );
    expect(maskSecretQueryParams('/oauth/info/tok?x=1')).toBe('/oauth/info/[REDACTED]?x=1');
    expect(
      maskSecretQueryParams(
        '/commerce/v2/events/E1/offers.json?api-key=k&displayId=pre&format=json',
      ),
    ).toBe(
      '/commerce/v2/events/E1/offers.json?api-key=[REDACTED]&displayId=[REDACTED]&format=json',
    );
    expect(maskSecretQueryParams('/x?API-KEY=k&Order_Token=t')).toBe(
      '/x?API-KEY=[REDACTED]&Order_Token=[REDACTED]',
    );
    expect(maskSecretQueryParams('/discovery/v2/events.json?size=5')).toBe(
      '/discovery/v2/events.json?size=5',
    );
  });
});
