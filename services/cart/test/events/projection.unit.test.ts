import { describe, expect, it } from 'vitest';
import { area, availability, EVENT_ID, partnerEvent } from '../support/events.js';
import {
  applyAvailabilityChanged,
  applyEventChanged,
  applyEventDeleted,
  emptyProjection,
} from '../../src/domain/event-projection.js';
import {
  toAvailabilityUpdate,
  toProjectedEvent,
} from '../../src/adapters/event-projection-messages.js';
import { isOnSale, pricesAt } from '../../src/domain/sellable-event.js';

describe('event projection', () => {
  it('maps a partner event: partner ids, timezone, country, currency, limits, price types', () => {
    const projected = toProjectedEvent(partnerEvent());
    expect(projected).toMatchObject({
      id: EVENT_ID,
      eventVersion: 1,
      partnerId: 'pPartner0001',
      partnerEventId: 'E1',
      name: 'Integration Night',
      timezone: 'Europe/London',
      countryCode: 'GB',
      currency: 'GBP',
      status: 'ONSALE',
      secureEntryEnabled: false,
      ticketLimit: 8,
      onSaleFrom: new Date('2030-01-01T00:00:00Z'),
      onSaleUntil: new Date('2031-06-01T18:00:00Z'),
    });
    expect(projected.priceTypes).toEqual([
      { id: '000001', name: 'Adult', description: '', regular: true, accessCodeRequired: false },
      { id: '000002', name: 'Fan club', description: '', regular: false, accessCodeRequired: true },
    ]);
    expect(projected.priceLevels.map((l) => l.name)).toEqual(['Stalls', 'Circle']);
  });

  it('keeps published events as not sellable (no partner, no currency)', () => {
    const projected = toProjectedEvent(
      partnerEvent({ origin: { kind: { $case: 'published', value: { appId: 'app' } } } }),
    );
    expect(projected.partnerId).toBe('');
    expect(projected.currency).toBe('');
    expect(projected.pricePeriods).toEqual([]);
  });

  it('applies only newer versions, and a tombstone keeps the version against stale redelivery', () => {
    const v1 = applyEventChanged(
      emptyProjection(EVENT_ID),
      toProjectedEvent(partnerEvent({ version: 1 })),
    )!;
    expect(v1.eventVersion).toBe(1);
    expect(applyEventChanged(v1, toProjectedEvent(partnerEvent({ version: 1 })))).toBeUndefined();
    const v2 = applyEventChanged(
      v1,
      toProjectedEvent(partnerEvent({ version: 2, status: 'EVENT_STATUS_CANCELLED' as never })),
    )!;
    expect(v2.event?.status).toBe('CANCELLED');
    const removed = applyEventDeleted(v2)!;
    expect(removed.event).toBeUndefined();
    expect(
      applyEventChanged(removed, toProjectedEvent(partnerEvent({ version: 2 }))),
    ).toBeUndefined();
    expect(
      applyEventChanged(removed, toProjectedEvent(partnerEvent({ version: 3 })))?.event?.id,
    ).toBe(EVENT_ID);
  });

  it('applies availability by sequence: full replaces, partial merges, older is dropped', () => {
    const full = applyAvailabilityChanged(
      emptyProjection(EVENT_ID),
      toAvailabilityUpdate(availability(2, [area(), area({ areaId: 'A2', available: 5 })])),
    )!;
    expect(full.areas.map((a) => [a.areaId, a.available])).toEqual([
      ['A1', 10],
      ['A2', 5],
    ]);
    expect(
      applyAvailabilityChanged(full, toAvailabilityUpdate(availability(2, []))),
    ).toBeUndefined();
    expect(
      applyAvailabilityChanged(full, toAvailabilityUpdate(availability(1, []))),
    ).toBeUndefined();
    const partial = applyAvailabilityChanged(
      full,
      toAvailabilityUpdate(
        availability(3, [area({ areaId: 'A2', available: 1 })], 'SYNC_SCOPE_PARTIAL'),
      ),
    )!;
    expect(partial.areas.map((a) => [a.areaId, a.available])).toEqual([
      ['A1', 10],
      ['A2', 1],
    ]);
    const replaced = applyAvailabilityChanged(
      partial,
      toAvailabilityUpdate(availability(4, [area({ available: 0 })])),
    )!;
    expect(replaced.areas.map((a) => a.areaId)).toEqual(['A1']);
    expect(replaced.availabilitySequence).toBe(4);
  });

  it('picks the prices of the current period, else the latest started one, else the earliest', () => {
    const periods = toProjectedEvent(partnerEvent()).pricePeriods;
    const at = (iso: string) =>
      Object.fromEntries(
        pricesAt(periods, new Date(iso)).map((p) => [
          `${p.priceLevelId}/${p.priceTypeId}`,
          p.amountMinor,
        ]),
      );
    expect(at('2030-06-01T00:00:00Z')).toEqual({
      'PL1/000001': 5000,
      'PL2/000001': 3000,
      'PL1/000002': 4000,
    });
    expect(at('2031-02-01T00:00:00Z')).toEqual({
      'PL1/000001': 6000,
      'PL2/000001': 3500,
      'PL1/000002': 4000,
    });
    expect(at('2032-01-01T00:00:00Z')['PL1/000001']).toBe(6000);
    expect(at('2029-01-01T00:00:00Z')['PL1/000001']).toBe(5000);
  });

  it('is on sale only for partner events inside the window and not cancelled', () => {
    const event = {
      ...toProjectedEvent(partnerEvent()),
      prices: [],
      areas: [],
      totalAvailable: 0,
    };
    expect(isOnSale(event, new Date('2030-06-01T00:00:00Z'))).toBe(true);
    expect(isOnSale(event, new Date('2029-06-01T00:00:00Z'))).toBe(false);
    expect(isOnSale(event, new Date('2031-07-01T00:00:00Z'))).toBe(false);
    expect(isOnSale({ ...event, status: 'CANCELLED' }, new Date('2030-06-01T00:00:00Z'))).toBe(
      false,
    );
    expect(isOnSale({ ...event, partnerId: '' }, new Date('2030-06-01T00:00:00Z'))).toBe(false);
  });
});
