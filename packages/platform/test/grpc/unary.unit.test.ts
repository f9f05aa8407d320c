import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { OnePerTurn } from '../../src/grpc/one-per-turn.js';
import { remainingDeadline, unary, type UnaryCallInfo } from '../../src/grpc/unary.js';

interface Answer {
  error: unknown;
  response: unknown;
}

/** A unary call as grpc-js hands it over, as far as `unary` reads it. */
function fakeCall(request: string, deadline: Date | number = Infinity, cancelled = false) {
  return { request, cancelled, getDeadline: () => deadline } as unknown as ServerUnaryCall<
    string,
    string
  >;
}

function answerOf(
  handler: (call: ServerUnaryCall<string, string>, callback: sendUnaryData<string>) => void,
  call: ServerUnaryCall<string, string>,
): Promise<Answer> {
  return new Promise((resolve) => handler(call, (error, response) => resolve({ error, response })));
}

describe('unary', () => {
  it('answers what the use case returns, synchronously or not', async () => {
    expect(
      await answerOf(
        unary((r: string) => r.toUpperCase()),
        fakeCall('hi'),
      ),
    ).toEqual({
      error: null,
      response: 'HI',
    });
    expect(
      await answerOf(
        unary(async (r: string) => `${r}!`),
        fakeCall('hi'),
      ),
    ).toEqual({
      error: null,
      response: 'hi!',
    });
  });

  it('answers with what the use case throws or rejects with', async () => {
    const thrown = new Error('thrown');
    const rejected = new Error('rejected');
    const sync = unary((): string => {
      throw thrown;
    });
    const async = unary(async (): Promise<string> => {
      throw rejected;
    });
    expect((await answerOf(sync, fakeCall('x'))).error).toBe(thrown);
    expect((await answerOf(async, fakeCall('x'))).error).toBe(rejected);
  });

  it("passes the time left before the caller's deadline, or none", async () => {
    const seen: UnaryCallInfo[] = [];
    const handler = unary((_: string, call) => {
      seen.push(call);
      return '';
    });
    await answerOf(handler, fakeCall('x', Date.now() + 60_000));
    await answerOf(handler, fakeCall('x'));
    expect(seen[0]!.deadlineMs).toBeGreaterThan(50_000);
    expect(seen[0]!.deadlineMs).toBeLessThanOrEqual(60_000);
    expect(seen[1]!.deadlineMs).toBeUndefined();
  });

  it('runs calls one per turn when given turns, skipping those cancelled meanwhile', async () => {
    const turns = new OnePerTurn();
    const ran: string[] = [];
    const handler = unary(
      (r: string) => {
        ran.push(r);
        return r;
      },
      { turns },
    );
    const first = answerOf(handler, fakeCall('first'));
    let cancelledAnswered = false;
    handler(fakeCall('cancelled', Infinity, true), () => (cancelledAnswered = true));
    const last = answerOf(handler, fakeCall('last'));
    expect(ran).toEqual([]);
    expect((await first).response).toBe('first');
    expect((await last).response).toBe('last');
    expect(ran).toEqual(['first', 'last']);
    expect(cancelledAnswered).toBe(false);
  });
});

describe('remainingDeadline', () => {
  it('reads a Date or epoch ms, never below 0, undefined without a deadline', () => {
    const now = 1_000_000;
    expect(remainingDeadline({ getDeadline: () => new Date(now + 250) }, now)).toBe(250);
    expect(remainingDeadline({ getDeadline: () => now + 40 }, now)).toBe(40);
    expect(remainingDeadline({ getDeadline: () => now - 5 }, now)).toBe(0);
    expect(remainingDeadline({ getDeadline: () => Infinity }, now)).toBeUndefined();
  });
});
