import { describe, expect, it } from 'vitest';
import { OnePerTurn } from '../../src/grpc/one-per-turn.js';

describe('OnePerTurn', () => {
  it('runs queued queries in order, one per turn of the event loop, so other work runs between them', async () => {
    const turns = new OnePerTurn();
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      for (const name of ['q1', 'q2', 'q3'])
        turns.run(() => {
          seen.push(name);
          if (name === 'q3') resolve();
        });
    });
    // Work that arrives meanwhile, one step per turn (as answers being flushed are).
    const step = (n: number) => {
      seen.push(`other${n}`);
      if (n < 2) setImmediate(() => step(n + 1));
    };
    setImmediate(() => step(1));
    await done;
    expect(seen).toEqual(['q1', 'other1', 'q2', 'other2', 'q3']);
    // Idle again: a later task still runs, and turn() resolves after those queued before it.
    const order: string[] = [];
    turns.run(() => order.push('task'));
    await turns.turn();
    expect(order).toEqual(['task']);
  });
});
