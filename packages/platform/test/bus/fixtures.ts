import type { BusLogger, EventBus, IncomingEvent, TopicDef } from '../../src/bus/index.js';
import { uniqueName } from '../../src/testing/index.js';

/**
 * A small protobuf message for bus tests, encoded by hand so the platform's own tests do not depend
 * on generated code:
 *
 *   message Ping { string id = 1; uint32 seq = 2; string note = 3; }
 */
export interface Ping {
  id: string;
  seq: number;
  note: string;
}

export const pingCodec = {
  encode(message: Ping): Uint8Array {
    const bytes: number[] = [];
    const writeVarint = (value: number): void => {
      let rest = value >>> 0;
      while (rest > 0x7f) {
        bytes.push((rest & 0x7f) | 0x80);
        rest >>>= 7;
      }
      bytes.push(rest);
    };
    const writeString = (field: number, value: string): void => {
      if (value === '') return; // proto3: default values are not written
      const utf8 = Buffer.from(value, 'utf8');
      writeVarint((field << 3) | 2);
      writeVarint(utf8.length);
      bytes.push(...utf8);
    };
    writeString(1, message.id);
    if (message.seq !== 0) {
      writeVarint((2 << 3) | 0);
      writeVarint(message.seq);
    }
    writeString(3, message.note);
    return Uint8Array.from(bytes);
  },

  decode(bytes: Uint8Array): Ping {
    const message: Ping = { id: '', seq: 0, note: '' };
    let position = 0;
    const readVarint = (): number => {
      let result = 0;
      for (let shift = 0; shift < 35; shift += 7) {
        if (position >= bytes.length) throw new RangeError('truncated varint');
        const byte = bytes[position++]!;
        result |= (byte & 0x7f) << shift;
        if ((byte & 0x80) === 0) return result >>> 0;
      }
      throw new RangeError('varint too long');
    };
    const readBytes = (): Uint8Array => {
      const length = readVarint();
      if (position + length > bytes.length)
        throw new RangeError('truncated length-delimited field');
      const slice = bytes.subarray(position, position + length);
      position += length;
      return slice;
    };
    while (position < bytes.length) {
      const tag = readVarint();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === 1 && wireType === 2) message.id = Buffer.from(readBytes()).toString('utf8');
      else if (field === 2 && wireType === 0) message.seq = readVarint();
      else if (field === 3 && wireType === 2)
        message.note = Buffer.from(readBytes()).toString('utf8');
      else if (wireType === 0) readVarint();
      else if (wireType === 2) readBytes();
      else if (wireType === 1 || wireType === 5) position += wireType === 1 ? 8 : 4;
      else throw new RangeError(`unsupported wire type ${wireType}`);
    }
    if (position !== bytes.length) throw new RangeError('truncated fixed-width field');
    return message;
  },
};

/** A fresh topic per test, so runs and tests never read each other's records. */
export function pingTopic(overrides: Partial<TopicDef<Ping>> = {}): TopicDef<Ping> {
  return {
    name: uniqueName('bus-contract'),
    type: 'marquee.test.v1.Ping',
    keyDescription: 'ping id',
    compacted: false,
    retentionMs: 60 * 60 * 1000,
    producer: 'platform-tests',
    codec: pingCodec,
    ...overrides,
  };
}

/**
 * The `.dlq` twin of a topic, read as raw bytes: a dead letter carries the original value bytes,
 * which may not even decode (that can be why it is there).
 */
export function deadLetterTopicOf(topic: TopicDef<unknown>): TopicDef<Uint8Array> {
  return {
    ...topic,
    name: `${topic.name}.dlq`,
    codec: { encode: (bytes) => bytes, decode: (bytes) => Uint8Array.from(bytes) },
  };
}

export function aPing(overrides: Partial<Ping> = {}): Ping {
  return { id: 'ping-1', seq: 1, note: 'hello', ...overrides };
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: object;
  message: string | undefined;
}

/** Keeps what the bus logs, so a test can both silence expected failures and assert on them. */
export function recordingLogger(): BusLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (fields: object, message?: string): void => {
      entries.push({ level, fields, message });
    };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A promise with its resolve handle, to hold a handler in flight. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Subscribes `bus` to `topic` in `group` (default a fresh one), starts it, and answers the list the
 * events it receives are pushed to, in order.
 */
export async function collect<T>(
  bus: EventBus,
  topic: TopicDef<T>,
  group: string = uniqueName('g'),
): Promise<IncomingEvent<T>[]> {
  const events: IncomingEvent<T>[] = [];
  await bus.subscribe(topic, { group }, async (event) => {
    events.push(event);
  });
  await bus.start();
  return events;
}
