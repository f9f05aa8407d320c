import { describe, expect, it, vi } from 'vitest';
import {
  createIdempotency,
  idempotencyIndexes,
  type IdempotencyRecord,
} from '../../src/idempotency/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { idempotencyContract } from './idempotency-contract.js';

idempotencyContract('memory', async () =>
  createMemoryStore<IdempotencyRecord>({ name: 'idempotency', indexes: idempotencyIndexes }),
);

describe('idempotency store traffic', () => {
  it('takes a new key with its insert alone and completes it with one write', async () => {
    const store = createMemoryStore<IdempotencyRecord>({
      name: 'idempotency',
      indexes: idempotencyIndexes,
    });
    const calls: string[] = [];
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const idempotency = createIdempotency(counted);
    const text = new TextEncoder();
    const call = {
      scope: 'app-1',
      key: 'key-1',
      request: text.encode('body'),
      encode: (r: { n: number }) => text.encode(JSON.stringify(r)),
      decode: (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as { n: number },
    };

    expect(await idempotency.run(call, async () => ({ n: 1 }))).toEqual({ n: 1 });
    expect(calls).toEqual(['insert', 'update']);

    calls.length = 0;
    expect(await idempotency.run(call, async () => ({ n: 2 }))).toEqual({ n: 1 });
    expect(calls).toEqual(['insert', 'get']);
  });

  it('refuses a new key through refuseNew without writing, and still replays a known one', async () => {
    const store = createMemoryStore<IdempotencyRecord>({
      name: 'idempotency',
      indexes: idempotencyIndexes,
    });
    const idempotency = createIdempotency(store);
    const text = new TextEncoder();
    const call = (key: string) => ({
      scope: 'app-1',
      key,
      request: text.encode('body'),
      encode: (r: { n: number }) => text.encode(JSON.stringify(r)),
      decode: (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as { n: number },
    });
    const refuse = {
      refuseNew: () => {
        throw new Error('sold out');
      },
    };
    await idempotency.run(call('known'), async () => ({ n: 1 }));

    await expect(idempotency.run(call('new'), async () => ({ n: 2 }), refuse)).rejects.toThrow(
      'sold out',
    );
    expect(await store.count()).toBe(1);
    expect(await idempotency.run(call('known'), async () => ({ n: 3 }), refuse)).toEqual({ n: 1 });
  });

  it('tells the caller when it waits for a duplicate that is still running', async () => {
    const store = createMemoryStore<IdempotencyRecord>({
      name: 'idempotency',
      indexes: idempotencyIndexes,
    });
    const idempotency = createIdempotency(store, { pollMs: 5 });
    const text = new TextEncoder();
    const call = {
      scope: 'app-1',
      key: 'slow',
      request: text.encode('body'),
      encode: (r: { n: number }) => text.encode(JSON.stringify(r)),
      decode: (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as { n: number },
    };
    let finish!: () => void;
    const first = idempotency.run(
      call,
      () => new Promise<{ n: number }>((resolve) => (finish = () => resolve({ n: 1 }))),
    );
    await vi.waitFor(async () => expect(await store.count()).toBe(1));
    let waits = 0;
    const duplicate = idempotency.run(call, async () => ({ n: 2 }), {
      onWait: () => {
        waits += 1;
        if (waits === 2) finish();
      },
    });
    expect(await duplicate).toEqual({ n: 1 });
    expect(await first).toEqual({ n: 1 });
    expect(waits).toBeGreaterThanOrEqual(2);
  });
});
