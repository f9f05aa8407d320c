import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  PRESENCE_KEEP_MS,
  PRESENCE_REPORT_MS,
  QueuePresenceTracker,
} from '../src/app/queue-presence.js';
import { MAX_PRESENCE_FANS } from '../src/app/waiting-room.js';

// The presence reports of the fans waiting at an edge replica (app/queue-presence.ts): what each
// report holds, and whether cart took the last one, on a fake clock and a fake cart.

const START = Date.parse('2030-06-01T10:00:00Z');

interface Report {
  eventId: string;
  reporter: string;
  fans: Array<{ ticketId: string; seenAtMs: number }>;
}

/** A tracker on a clock the test moves, reporting to a fake cart that fails with `failWith`. */
function setUp() {
  const clock = { now: START };
  const reports: Report[] = [];
  const errors: Array<{ error: unknown; eventId: string }> = [];
  const cart = { failWith: undefined as Error | undefined };
  const presence = new QueuePresenceTracker(
    {
      reportPresence: async (eventId, reporter, fans) => {
        if (cart.failWith) throw cart.failWith;
        reports.push({ eventId, reporter, fans: [...fans] });
      },
    },
    {
      reporter: 'edge-7',
      onError: (error, eventId) => errors.push({ error, eventId }),
      now: () => clock.now,
    },
  );
  /** The reports of the next round, by event. */
  const round = async () => {
    reports.length = 0;
    await presence.reportNow();
    return Object.fromEntries(reports.map((r) => [r.eventId, r]));
  };
  return { clock, cart, presence, errors, round };
}

/** The error an older cart's UNIMPLEMENTED becomes (the gRPC client's mapping). */
const unimplemented = () =>
  Object.assign(new Error('12 UNIMPLEMENTED: unknown method'), { kind: 'internal' });

afterEach(() => {
  vi.useRealTimers();
});

describe('presence reports', () => {
  it("reports each event's fans with when they last asked, under the replica's id", async () => {
    const sut = setUp();
    sut.presence.seen('E1', 'q_1');
    sut.clock.now += 1_000;
    sut.presence.seen('E1', 'q_2');
    sut.presence.seen('E2', 'q_9');
    sut.clock.now += 1_000;
    sut.presence.seen('E1', 'q_1');
    const reports = await sut.round();
    expect(reports).toEqual({
      E1: {
        eventId: 'E1',
        reporter: 'edge-7',
        fans: [
          { ticketId: 'q_2', seenAtMs: START + 1_000 },
          { ticketId: 'q_1', seenAtMs: START + 2_000 },
        ],
      },
      E2: {
        eventId: 'E2',
        reporter: 'edge-7',
        fans: [{ ticketId: 'q_9', seenAtMs: START + 1_000 }],
      },
    });
    expect(sut.errors).toEqual([]);
  });

  it('leaves out fans silent for over 120 s, reports an event left without fans empty once, then forgets it', async () => {
    const sut = setUp();
    sut.presence.seen('E1', 'q_1');
    sut.presence.seen('E2', 'q_9');
    sut.clock.now += 60_000;
    sut.presence.seen('E1', 'q_2');
    // A fan silent for exactly 120 s is still reported, with its true time: cart decides.
    sut.clock.now = START + PRESENCE_KEEP_MS;
    expect((await sut.round()).E1?.fans.map((f) => f.ticketId)).toEqual(['q_1', 'q_2']);
    sut.clock.now += 1;
    const reports = await sut.round();
    expect(reports.E1?.fans).toEqual([{ ticketId: 'q_2', seenAtMs: START + 60_000 }]);
    // E2's only fan is gone: its report is empty, so that cart drops this replica's last one.
    expect(reports.E2).toEqual({ eventId: 'E2', reporter: 'edge-7', fans: [] });
    expect(sut.presence.reported('E2')).toBe(false);
    expect((await sut.round()).E2).toBeUndefined();
    sut.clock.now += 60_000;
    expect(await sut.round()).toMatchObject({ E1: { fans: [] } });
    expect(await sut.round()).toEqual({});
  });

  it('reports the 50,000 fans that asked last, and a report that left fans out does not count', async () => {
    const sut = setUp();
    for (let i = 0; i <= MAX_PRESENCE_FANS; i += 1) {
      sut.presence.seen('E1', `q_${i}`);
      sut.clock.now += 1;
    }
    const fans = (await sut.round()).E1!.fans;
    expect(fans).toHaveLength(MAX_PRESENCE_FANS);
    expect(fans[0]).toEqual({ ticketId: 'q_1', seenAtMs: START + 1 });
    expect(fans.at(-1)?.ticketId).toBe(`q_${MAX_PRESENCE_FANS}`);
    expect(sut.presence.reported('E1')).toBe(false);
  });

  it('knows cart took the last report for two intervals, and not after a failed one', async () => {
    const sut = setUp();
    expect(sut.presence.reported('E1')).toBe(false);
    sut.presence.seen('E1', 'q_1');
    expect(sut.presence.reported('E1')).toBe(false);
    await sut.round();
    expect(sut.presence.reported('E1')).toBe(true);
    expect(sut.presence.reported('E2')).toBe(false);
    // A cart of an earlier release answers UNIMPLEMENTED: logged, and sent again next time.
    sut.cart.failWith = unimplemented();
    await sut.round();
    expect(sut.presence.reported('E1')).toBe(false);
    expect(sut.errors).toEqual([{ error: sut.cart.failWith, eventId: 'E1' }]);
    sut.cart.failWith = undefined;
    sut.presence.seen('E1', 'q_1');
    await sut.round();
    expect(sut.presence.reported('E1')).toBe(true);
    // No report since (the timer held up): true for two intervals after the last, then false.
    sut.clock.now += 2 * PRESENCE_REPORT_MS - 1;
    expect(sut.presence.reported('E1')).toBe(true);
    sut.clock.now += 1;
    expect(sut.presence.reported('E1')).toBe(false);
  });

  describe('on its timer', () => {
    beforeEach(() => {
      vi.useFakeTimers({ now: START });
    });

    it('reports every 15 s from the first fan seen, retries a failed report, and stops', async () => {
      const reports: string[] = [];
      let failures = 0;
      let fail = true;
      const presence = new QueuePresenceTracker(
        {
          reportPresence: async (eventId, _reporter, fans) => {
            if (fail) throw unimplemented();
            reports.push(`${eventId}:${fans.length}`);
          },
        },
        { reporter: 'edge-7', onError: () => (failures += 1) },
      );
      await vi.advanceTimersByTimeAsync(PRESENCE_REPORT_MS);
      expect(failures + reports.length).toBe(0);
      presence.seen('E1', 'q_1');
      await vi.advanceTimersByTimeAsync(PRESENCE_REPORT_MS);
      expect(failures).toBe(1);
      expect(presence.reported('E1')).toBe(false);
      fail = false;
      await vi.advanceTimersByTimeAsync(PRESENCE_REPORT_MS);
      expect(reports).toEqual(['E1:1']);
      expect(presence.reported('E1')).toBe(true);
      presence.stop();
      presence.seen('E1', 'q_2');
      await vi.advanceTimersByTimeAsync(4 * PRESENCE_REPORT_MS);
      expect(reports).toEqual(['E1:1']);
      expect(failures).toBe(1);
    });
  });
});
