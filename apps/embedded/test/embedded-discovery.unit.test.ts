import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedMarquee } from '../src/embedded.js';

/**
 * The embedded default (`pnpm start`) answers discovery too: an event published with the demo app's
 * key through the in-memory bus reaches catalog-indexer and both discovery APIs.
 */
describe('embedded default: publish then discover', () => {
  let sut: EmbeddedMarquee;
  // The demo app's quota is 5 requests a second, counted in fixed one-second windows when
  // auth-gateway sees a call: keep 220 ms between one call's answer and the next call, so that a
  // call held up on its way (a loaded machine) cannot bunch up with the ones after it.
  let lastAnswer = 0;
  const call = async (path: string, init: RequestInit = {}) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const separator = path.includes('?') ? '&' : '?';
    try {
      return await fetch(`${sut.baseUrl}${path}${separator}apikey=${sut.demo.apiKey}`, init);
    } finally {
      lastAnswer = Date.now();
    }
  };

  beforeAll(async () => {
    sut = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      logger: createLogger({ service: 'embedded-test', level: 'silent' }),
      env: { LOG_LEVEL: 'silent' },
    });
  }, 120_000); // ten services: seconds, more on a loaded machine

  afterAll(async () => {
    await sut?.stop();
  });

  // Publish → outbox → bus → catalog-indexer → index: generous bounds for a loaded machine.
  it('finds a published event in Discovery v2 and international discovery', async () => {
    const published = await call('/publish/v2/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        source: { id: 'embedded', name: 'embedded' },
        version: 1,
        names: { 'en-us': 'Embedded Harbour Concert' },
        dates: {
          start: {
            localDate: '2031-05-01',
            localTime: '20:00:00',
            dateTime: '2031-05-01T18:00:00Z',
          },
        },
        place: {
          names: { 'en-us': 'Harbour Hall' },
          city: { names: { 'en-us': 'Oslo' } },
          country: { countryCode: 'NO' },
          location: { latitude: 59.91, longitude: 10.75 },
        },
      }),
    });
    expect(published.status).toBe(200);
    const { id } = (await published.json()) as { id: string };
    const found = await waitFor(
      async () => {
        const body = (await (await call('/discovery/v2/events.json?keyword=harbour')).json()) as {
          _embedded: {
            events: Array<{ id: string; _embedded: { venues: Array<{ city: { name: string } }> } }>;
          };
        };
        return body._embedded.events.find((e) => e.id === id);
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the event in discovery v2' },
    );
    expect(found._embedded.venues[0]!.city.name).toBe('Oslo');
    const intl = (await (
      await call('/mfxapi/v2/events?domain=norway&event_name=harbour')
    ).json()) as {
      events: Array<{ id: string; domain_id: number }>;
    };
    expect(intl.events).toContainEqual(expect.objectContaining({ id, domain_id: 578 }));
  }, 60_000);
});
