import { periodic, type Periodic } from '@marquee/platform/lifecycle';
import { metrics } from '@marquee/platform/metrics';
import type { AdmitTick } from '../app/admit.js';
import type { OnSaleRepository, QueueTicketRepository } from '../app/ports.js';
import { StallWatch } from '../domain/stall.js';

const admissions = metrics.counter('marquee_queue_admissions', {
  description: 'Fans let through a waiting room (admitted to reserve)',
});
const abandoned = metrics.counter('marquee_queue_abandoned', {
  description: 'Fans who stopped asking before their turn came (left the queue)',
});
const heldBack = metrics.counter('marquee_queue_held_back', {
  description:
    'Fans whose turn came while their app held its held-ticket quota of the event (held back, keeping their place; counted once per fan)',
});
const waits = metrics.histogram('marquee_queue_wait_seconds', {
  description: 'How long admitted fans waited, from their join or the opening, whichever is later',
  unit: 's',
  buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 2400, 3600],
});
const windows = metrics.histogram('marquee_queue_window', {
  description: 'The admission window (admissions in flight allowed) at each admitting tick',
  buckets: [5, 10, 20, 50, 100, 200, 500, 1000, 2000],
});

/**
 * How often the fans still waiting are counted for the queue-length gauge: a count is a query of
 * the event's tickets (on the Mongo-wire server of development and CI, a scan of all of them).
 */
const COUNT_EVERY_MS = 15_000;

export interface AdmitterLoopOptions {
  admitter: AdmitTick;
  onSales: Pick<OnSaleRepository, 'queued'>;
  tickets: Pick<QueueTicketRepository, 'countWaiting' | 'countHeldBack'>;
  /** Pause between ticks. */
  tickMs: number;
  onError: (error: unknown) => void;
}

/**
 * The admitter of every event with a queue on, ticking in every replica (the lease in the
 * on-sale lets one of them work per event). The replica that admits counts the fans it admits,
 * those who left and those held back by their app's quota, their waits, and every few seconds
 * the fans still waiting per event (`marquee_queue_waiting`, which the event's admitting replica
 * reports), and how long each open queue has gone without admitting while fans wait and places
 * remain (`marquee_queue_stalled_seconds`, the `MarqueeQueueStalled` alert's signal; `StallWatch`).
 */
export function admitterLoop(options: AdmitterLoopOptions): Periodic & { stopGauge(): void } {
  const waiting = new Map<string, number>();
  /** Fans waiting whose app has room (not held back by its quota), at the latest count. */
  const due = new Map<string, number>();
  const stalls = new StallWatch();
  let countedAt = 0;
  const stopWaiting = metrics.gauge(
    'marquee_queue_waiting',
    { description: 'Fans waiting in a queue, per event (reported by its admitting replica)' },
    () => [...waiting].map(([eventId, value]) => ({ value, attributes: { event_id: eventId } })),
  );
  const stopStalled = metrics.gauge(
    'marquee_queue_stalled_seconds',
    {
      description:
        'Seconds an open queue has admitted nobody while fans wait and places remain, per event (0 while it moves; reported by its admitting replica)',
      unit: 's',
    },
    () =>
      stalls
        .stalledSeconds(Date.now())
        .map(({ eventId, seconds }) => ({ value: seconds, attributes: { event_id: eventId } })),
  );
  const tickAll = async () => {
    const count = Date.now() - countedAt >= COUNT_EVERY_MS;
    if (count) countedAt = Date.now();
    const queued = new Set(await options.onSales.queued());
    // An event this replica stops reporting reads 0 (metrics.gauge reports a dropped series so).
    for (const eventId of waiting.keys()) if (!queued.has(eventId)) waiting.delete(eventId);
    for (const eventId of due.keys()) if (!queued.has(eventId)) due.delete(eventId);
    stalls.retain(queued);
    for (const eventId of queued) {
      const outcome = await options.admitter.handle(eventId);
      // A write raced the lease's (often the sell-out itself): this replica's series stay as
      // they are until the next tick tells whether it still admits.
      if (outcome.kind === 'contended') continue;
      if (outcome.kind === 'not-leader' || outcome.kind === 'idle') {
        if (outcome.kind === 'not-leader') waiting.delete(eventId);
        // Idle: the queue has not opened yet, nothing is due.
        stalls.forget(eventId);
        continue;
      }
      if (count) {
        const all = await options.tickets.countWaiting(eventId);
        waiting.set(eventId, all);
        // Only fans whose turn can come: a fan held back waits for its app's carts to end.
        due.set(eventId, all > 0 ? all - (await options.tickets.countHeldBack(eventId)) : 0);
      }
      if (outcome.kind === 'frozen') stalls.opened(eventId, Date.now());
      if (outcome.kind === 'admitted') {
        admissions.add(outcome.admitted);
        abandoned.add(outcome.left);
        heldBack.add(outcome.heldBack);
        windows.record(outcome.window);
        for (const ms of outcome.waitsMs) waits.record(ms / 1000);
        stalls.ticked(
          eventId,
          { admitted: outcome.admitted, soldOut: outcome.soldOut, waiting: due.get(eventId) },
          Date.now(),
        );
      }
    }
  };
  const loop = periodic(tickAll, {
    intervalMs: options.tickMs,
    maxDutyCycle: 0.5,
    onError: options.onError,
  });
  const stopGauge = () => {
    stopWaiting();
    stopStalled();
  };
  return { ...loop, stopGauge };
}
