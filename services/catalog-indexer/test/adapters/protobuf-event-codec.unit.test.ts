import { Event } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';

const event = Event.fromPartial({
  id: 'E1',
  version: 3,
  active: true,
  // Non-ASCII in the encoding and in the document: every byte above 0x7f must come back as it was.
  names: { values: { 'en-us': 'Gala in Zürich', 'ja-jp': '東京ガラ 🎭' } },
  url: 'https://tickets.example.com/E1',
});

describe('protobufEventCodec', () => {
  it('gives back the event, its encoding and its document, byte for byte', () => {
    const document = '{"name":"Gala in Zürich · 東京 🎭","id":"E1"';
    const packed = protobufEventCodec.pack(event, document);
    expect(protobufEventCodec.unpack(packed)).toEqual(event);
    expect(Buffer.from(protobufEventCodec.encoded!(packed))).toEqual(
      Buffer.from(Event.encode(event).finish()),
    );
    expect(Buffer.from(protobufEventCodec.document(packed)!).toString('utf8')).toBe(document);
  });

  it('has no document when none was packed, and survives an encoding over 64 kB', () => {
    const big = Event.fromPartial({
      ...event,
      url: `https://tickets.example.com/${'x'.repeat(70_000)}`,
    });
    const packed = protobufEventCodec.pack(big, undefined);
    expect(protobufEventCodec.document(packed)).toBeUndefined();
    expect(protobufEventCodec.unpack(packed)).toEqual(big);
  });
});
