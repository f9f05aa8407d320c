import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';
import type { Attraction, Venue } from '../../src/domain/model.js';
import {
  attractionMessageOf,
  eventMessageOf,
  venueMessageOf,
} from '../../src/adapters/proto/catalog-messages.js';
import { catalogEventOf } from '../../src/adapters/proto/kafka-messages.js';

const event = catalogEventOf(
  Event.fromPartial({
    id: 'E1',
    version: 3,
    active: true,
    // Non-ASCII in the encoding and in the document: every byte above 0x7f must come back as it was.
    names: { values: { 'en-us': 'Gala in Zürich', 'ja-jp': '東京ガラ 🎭' } },
    url: 'https://tickets.example.com/E1',
  }),
);

describe('protobufEventCodec', () => {
  it('gives back the event, its encoding and its document, byte for byte', () => {
    const document = '{"name":"Gala in Zürich · 東京 🎭","id":"E1"';
    const packed = protobufEventCodec.pack(event, document);
    expect(protobufEventCodec.unpack(packed)).toEqual(event);
    expect(Buffer.from(protobufEventCodec.encoded(packed))).toEqual(
      Buffer.from(Event.encode(eventMessageOf(event)).finish()),
    );
    expect(Buffer.from(protobufEventCodec.document(packed)!).toString('utf8')).toBe(document);
  });

  it('has no document when none was packed, and survives an encoding over 64 kB', () => {
    const big = { ...event, url: `https://tickets.example.com/${'x'.repeat(70_000)}` };
    const packed = protobufEventCodec.pack(big, undefined);
    expect(protobufEventCodec.document(packed)).toBeUndefined();
    expect(protobufEventCodec.unpack(packed)).toEqual(big);
  });

  it('encodes venues and attractions as the gRPC port answers them', () => {
    const venue: Venue = {
      id: 'ZV1',
      names: { values: { 'en-us': 'Hall' } },
      test: false,
      postalCode: '10001',
      timezone: 'America/New_York',
      marketIds: [35],
      country: { countryCode: 'US', names: undefined },
      state: undefined,
      cityNames: { values: { 'en-us': 'New York' } },
      location: { latitude: 40.75, longitude: -73.99 },
      address: undefined,
      upcomingEvents: 4,
      cityId: 123,
    };
    const attraction: Attraction = {
      id: 'K1',
      names: { values: { 'en-us': 'The Band' } },
      test: true,
      url: '',
      images: [],
      classifications: [{ primary: true, segment: { id: 'KZ1', names: undefined } }],
      upcomingEvents: 2,
    };
    expect(DiscoveryVenue.decode(protobufEventCodec.encodeVenue(venue))).toEqual(
      venueMessageOf(venue),
    );
    expect(DiscoveryAttraction.decode(protobufEventCodec.encodeAttraction(attraction))).toEqual(
      attractionMessageOf(attraction),
    );
  });
});
