// The analytics guide's Python consumer (examples/python-consumer) against the real Kafka: a record
// published by the platform's own bus on `event-changed` must come out decoded, headers checked,
// and its tombstone as a deletion.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createKafkaBus } from '@marquee/platform/bus';
import { uniqueName } from '@marquee/platform/testing';
import { EventChanged } from '@marquee/proto/catalog/v1';
import { eventChangedTopic } from '@marquee/proto/topics';
import { beforeAll, describe, expect, it } from 'vitest';
import { exampleDir, preparePython, requireKafka, requirePython } from './python-env.js';

const execFileAsync = promisify(execFile);

const ready = requireKafka() && requirePython();

/** A 15-character alphanumeric id, the shape of the platform's public event ids. */
function eventId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(15)].map((b) => alphabet[b % alphabet.length]).join('');
}

describe.runIf(ready)('Python consumer of event-changed (confluent-kafka + protobuf)', () => {
  let python: string;

  beforeAll(() => {
    python = preparePython();
  });

  it('passes its own unit tests (header checks, decoding, tombstones)', async () => {
    const { stderr } = await execFileAsync(python, ['-m', 'unittest', '-v'], { cwd: exampleDir });
    expect(stderr).toMatch(/Ran [1-9]\d* tests/);
    expect(stderr).toMatch(/\nOK\s*$/);
  });

  it('decodes a record the platform published on event-changed, then its tombstone', async () => {
    const id = eventId();
    const cloudEventId = randomUUID();
    const name = `Python consumer check ${id}`;
    const bus = createKafkaBus({
      brokers: process.env.KAFKA_BROKERS!.split(','),
      clientId: 'python-consumer-test',
      source: 'marquee/publisher',
    });
    try {
      // test: true and inactive, so that a discovery index reading the same topic hides it; the
      // tombstone then deletes it for every consumer.
      await bus.publish(eventChangedTopic, [
        {
          key: id,
          id: cloudEventId,
          time: new Date('2026-01-02T03:04:05.000Z'),
          value: EventChanged.fromPartial({
            event: {
              id,
              version: 1,
              test: true,
              active: false,
              names: { values: { 'en-us': name } },
            },
            changedAt: new Date('2026-01-02T03:04:05.000Z'),
          }),
        },
      ]);
      await bus.publish(eventChangedTopic, [{ key: id, value: null }]);
    } finally {
      await bus.close();
    }

    const { stdout, stderr } = await execFileAsync(
      python,
      [
        'consume_event_changed.py',
        '--brokers',
        process.env.KAFKA_BROKERS!,
        '--group',
        uniqueName('python-consumer-test'),
        '--key',
        id,
        '--max-records',
        '2',
        '--idle-timeout',
        '60',
        '--json',
      ],
      { cwd: exampleDir, timeout: 110_000 },
    );
    expect(stderr).toBe('');
    const records = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      {
        key: id,
        deleted: false,
        ce_id: cloudEventId,
        ce_source: 'marquee/publisher',
        ce_time: '2026-01-02T03:04:05.000Z',
        id,
        name,
        version: 1,
        active: false,
        test: true,
        changed_at: '2026-01-02T03:04:05Z',
      },
      {
        key: id,
        deleted: true,
        ce_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        ce_source: 'marquee/publisher',
        ce_time: expect.any(String),
        id,
      },
    ]);
  });
});
