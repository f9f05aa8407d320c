/**
 * Copies a value into the plain-data shape both store adapters persist, refusing what the Mongo-wire
 * server of dev/CI cannot store (no keys with `.` or a leading `$`, no nested arrays; deploy/local/README.md). The
 * memory adapter runs every write through it too, so the embedded default rejects exactly what
 * MongoDB/FerretDB would, instead of accepting it and failing only in production.
 */
import type { OutboxEvent } from '../outbox/types.js';
import { invalidDocument } from './errors.js';

export function toPortable(value: unknown, path = '$'): unknown {
  return portable(value, [path]);
}

/**
 * The walk of `toPortable`. `trail` is the path to `value` as its steps (a key or an array index),
 * joined into text only for an error: every write runs through here, so no string is built for a
 * field that is fine.
 */
function portable(value: unknown, trail: (string | number)[]): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      return value;
    case 'undefined':
      // Only reachable inside arrays (object properties are dropped below); the driver writes null.
      return null;
    case 'object':
      break;
    default:
      throw refused(trail, `a ${typeof value} cannot be stored`);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw refused(trail, 'invalid date');
    return new Date(value.getTime());
  }
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (Array.isArray(item)) {
        const at = pathOf(trail);
        throw invalidDocument(`${at}[${i}]: arrays inside arrays cannot be stored`, { path: at });
      }
      trail.push(i);
      out[i] = portable(item, trail);
      trail.pop();
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw refused(trail, 'only plain objects can be stored');
  }
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined) continue;
    if (key === '' || key.includes('.') || key.startsWith('$')) {
      throw refused(
        trail,
        `key "${key}" cannot be stored (empty, contains "." or starts with "$")`,
      );
    }
    trail.push(key);
    out[key] = portable(item, trail);
    trail.pop();
  }
  return out;
}

/** The `invalid_argument` of a value `toPortable` refuses, named by its path (`$.lines[2].price`). */
function refused(trail: readonly (string | number)[], why: string) {
  const at = pathOf(trail);
  return invalidDocument(`${at}: ${why}`, { path: at });
}

function pathOf(trail: readonly (string | number)[]): string {
  let path = String(trail[0]);
  for (let i = 1; i < trail.length; i++) {
    const step = trail[i]!;
    path += typeof step === 'number' ? `[${step}]` : `.${step}`;
  }
  return path;
}

/** Splits a document into its id, the version it claims (ignored by writes) and the stored data. */
export function splitDocument(doc: unknown): { id: string; data: Record<string, unknown> } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw invalidDocument('a document must be an object');
  const { id, version: _ignored, ...rest } = doc as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0)
    throw invalidDocument('a document needs a non-empty string id');
  return { id, data: toPortable(rest) as Record<string, unknown> };
}

/** Validates and copies outbox events: a malformed event must fail the write, not the relay later. */
export function portableEvents(events: readonly OutboxEvent[] | undefined): OutboxEvent[] {
  if (events === undefined) return [];
  return events.map((event, i) => {
    const where = `events[${i}]`;
    for (const field of ['id', 'topic', 'key', 'type'] as const) {
      if (typeof event[field] !== 'string' || event[field].length === 0) {
        throw invalidDocument(`${where}.${field} must be a non-empty string`, { field });
      }
    }
    if (event.value !== null && !(event.value instanceof Uint8Array)) {
      throw invalidDocument(`${where}.value must be bytes or null`, { field: 'value' });
    }
    if (!(event.time instanceof Date) || Number.isNaN(event.time.getTime())) {
      throw invalidDocument(`${where}.time must be a valid Date`, { field: 'time' });
    }
    return {
      id: event.id,
      topic: event.topic,
      key: event.key,
      type: event.type,
      value: event.value === null ? null : Buffer.from(event.value),
      time: new Date(event.time.getTime()),
      ...(event.traceparent !== undefined ? { traceparent: event.traceparent } : {}),
      ...(event.tracestate !== undefined ? { tracestate: event.tracestate } : {}),
      ...(event.correlationId !== undefined ? { correlationId: event.correlationId } : {}),
    };
  });
}
