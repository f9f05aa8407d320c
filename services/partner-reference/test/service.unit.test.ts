import { createMemoryBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { hostService } from '@marquee/platform/service';
import { describe, expect, it } from 'vitest';
import { partnerReferenceService } from '../src/index.js';
import { ADMIN_TOKEN, CLIENT_ID, CLIENT_SECRET } from './http.js';

describe('partnerReferenceService', () => {
  it('starts seeded on memory storage and serves the 3P API with tokens from /oauth/token', async () => {
    const logger = createLogger({ service: 'partner-reference', level: 'silent' });
    const bus = createMemoryBus({ source: 'test' });
    const infra = { name: 'partner-reference', logger, bus, mongo: undefined };
    const config = partnerReferenceService.loadConfig({
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      PARTNER_ADMIN_TOKEN: ADMIN_TOKEN,
      PARTNER_CLIENT_ID: CLIENT_ID,
      PARTNER_CLIENT_SECRET: CLIENT_SECRET,
    });
    const sut = await hostService(infra, await partnerReferenceService.compose(infra, config), {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
    });
    try {
      const base = `http://127.0.0.1:${sut.httpPort}`;
      const venues = await fetch(`${base}/admin/v1/venues`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const { venues: list } = (await venues.json()) as { venues: Array<{ venue_id: string }> };
      expect(list).toHaveLength(2);
      const token = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const { access_token } = (await token.json()) as { access_token: string };
      const events = await fetch(
        `${base}/v1/events?venue=${list[0]!.venue_id}&last_modification=2000-01-01T00:00:00Z`,
        { headers: { authorization: `Bearer ${access_token}` } },
      );
      expect(events.status).toBe(200);
      expect(((await events.json()) as { events_info: unknown[] }).events_info).toHaveLength(2);
    } finally {
      await sut.stop();
      await bus.close();
    }
  });
});
