import { errorKindOf, isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import { createOutboxEvent, type OutboxEvent } from '@marquee/platform/outbox';
import type { ServiceStores, VersionedStore } from '@marquee/platform/store';
import { queueAdmittedTopic, queueOpenedTopic } from '@marquee/proto/topics';
import type { WaitingRoomEvent } from '../domain/events.js';
import type {
  OnSaleRecord,
  OnSaleRepository,
  QueuePresenceRepository,
  QueueTicketRepository,
  Stored,
} from '../app/ports.js';
import type { QueueTicket } from '../domain/queue.js';

type OnSaleDoc = Stored<OnSaleRecord> & { id: string };
interface EarlyOrderDoc {
  id: string;
  version: number;
  keys: string[];
}
/** One reporter's fans of one event (id `<event> <reporter>`), as parallel arrays. */
interface PresenceDoc {
  id: string;
  version: number;
  eventId: string;
  reportedAt: Date;
  ticketIds: string[];
  seenAtMs: number[];
}
/** One admission in flight (id = its queue ticket's id): the ticket is ADMITTED. */
interface InFlightDoc {
  id: string;
  version: number;
  eventId: string;
  appId: string;
  admittedAt: Date;
}
/** Who took a late-join sequence number (id `<event> <sequence>`). */
interface LateJoinDoc {
  id: string;
  version: number;
  ticketId: string;
}
interface SequenceDoc {
  id: string;
  version: number;
  last: number;
}

/** The records of `happened`, for the outbox of the write that makes them true. */
export function outboxEventsOf(happened: readonly WaitingRoomEvent[] = []): OutboxEvent[] {
  return happened.map((event) =>
    event.kind === 'queue-opened'
      ? createOutboxEvent(queueOpenedTopic, {
          key: event.eventId,
          value: {
            eventId: event.eventId,
            opensAt: event.opensAt,
            frozenAt: event.frozenAt,
            earlyCount: event.earlyCount,
          },
          time: event.frozenAt,
        })
      : createOutboxEvent(queueAdmittedTopic, {
          key: event.eventId,
          value: {
            eventId: event.eventId,
            queueTicketId: event.ticketId,
            appId: event.appId,
            rank: event.rank ?? 0,
            admittedAt: event.admittedAt,
            waitedMs: event.waitedMs,
          },
          time: event.admittedAt,
        }),
  );
}

const withoutId = <T extends { id: string }>(doc: T): Omit<T, 'id'> => {
  const { id: _id, ...rest } = doc;
  return rest;
};

/**
 * How much older than the `since` of a count an admission's entry is kept before removal: a count
 * with a `since` up to this much before the latest one asked is exact.
 */
const IN_FLIGHT_KEEP_MS = 10 * 60_000;
/** How often a process removes the entries past {@link IN_FLIGHT_KEEP_MS} at most. */
const IN_FLIGHT_SWEEP_MS = 60_000;

/**
 * `queue_admissions`: an entry per ticket while it is ADMITTED, written by the ticket writes that
 * move it in and out (admit, spend, give back), so that counting the admissions in flight reads
 * these few entries instead of the event's tickets: the admitter counts at every tick, and a
 * Mongo-wire server that decodes a whole collection for any query but by `_id` (FerretDB, about
 * 84 ms of its CPU at 10,000 tickets) would spend most of its time on that count. The entry is
 * written before the ticket is admitted and removed after it is spent, so a failure in between
 * counts an admission too many, never one too few, until the admission's lifetime has passed.
 */
function admissionsInFlight(entries: VersionedStore<InFlightDoc>) {
  let sweptAt = 0;
  const sweep = async (before: Date) => {
    if (Date.now() - sweptAt < IN_FLIGHT_SWEEP_MS) return;
    sweptAt = Date.now();
    for (const old of await entries.find({ admittedAt: { $lt: before } }, { limit: 500 }))
      await entries.delete(old.id, old.version).catch(() => undefined);
  };
  return {
    /** The ticket is about to be admitted (or given back its admission). */
    async entering(ticket: QueueTicket): Promise<void> {
      const { id, eventId, appId, admittedAt } = ticket;
      if (!admittedAt) return;
      try {
        await entries.insert({ id, eventId, appId, admittedAt });
      } catch (error) {
        // Written already: an admission retried after a lost race, or a give-back.
        if (errorKindOf(error) !== 'already_exists') throw error;
      }
    },
    /** The ticket is not ADMITTED (spent, or its admission lost the race). */
    async left(ticketId: string): Promise<void> {
      // Best effort: an entry left behind counts one admission too many until its lifetime ends,
      // the cautious side; a failed spend must not be reported for it.
      await entries.delete(ticketId).catch(() => undefined);
    },
    async count(eventId: string, since: Date, appId?: string): Promise<number> {
      await sweep(new Date(since.getTime() - IN_FLIGHT_KEEP_MS));
      const found = await entries.find({ eventId, ...(appId !== undefined ? { appId } : {}) });
      return found.filter((entry) => entry.admittedAt.getTime() >= since.getTime()).length;
    },
  };
}

/** The admitter's queries of an event's tickets (each one query of the collection). */
function queueQueries(
  tickets: VersionedStore<Stored<QueueTicket>>,
): Pick<
  QueueTicketRepository,
  'earlyOrderKeys' | 'nextWaiting' | 'nextHeldBack' | 'countWaiting' | 'countHeldBack'
> {
  return {
    async earlyOrderKeys(eventId) {
      const all = await tickets.find({ eventId, early: true });
      return all.map((t) => t.orderKey);
    },
    nextWaiting: (eventId, limit) =>
      tickets.find(
        { eventId, state: 'WAITING', heldBack: { $ne: true } },
        { sort: { orderKey: 1 }, limit },
      ),
    nextHeldBack: (eventId, limit, appId) =>
      tickets.find(
        {
          eventId,
          state: 'WAITING',
          heldBack: true,
          ...(appId !== undefined ? { appId } : {}),
        },
        { sort: { orderKey: 1 }, limit },
      ),
    countWaiting: (eventId) => tickets.count({ eventId, state: 'WAITING' }),
    countHeldBack: (eventId) => tickets.count({ eventId, state: 'WAITING', heldBack: true }),
  };
}

/**
 * `queue_presence`: one document per event and reporting edge replica, the fans it holds and when
 * each last asked, rewritten at each report (one write for all of them, where a refresh of each
 * ticket's `seenAt` would be a write per fan). A replica gone for good leaves its last report,
 * which stops counting once older than what a reader asks for and is removed by the next read
 * that finds it older than {@link PRESENCE_KEEP_MS}.
 */
function presenceRepository(reports: VersionedStore<PresenceDoc>): QueuePresenceRepository {
  const idOf = (eventId: string, reporter: string) => `${eventId} ${reporter}`;
  return {
    async replace(eventId, reporter, reportedAt, fans) {
      const id = idOf(eventId, reporter);
      if (fans.length === 0) {
        await reports.delete(id);
        return;
      }
      const next = {
        eventId,
        reportedAt,
        ticketIds: fans.map((fan) => fan.ticketId),
        seenAtMs: fans.map((fan) => fan.seenAtMs),
      };
      // Reports of one replica come one at a time; a first insert that met another is a lost race.
      await retryingConflicts(
        async () => {
          const written = await reports.modify(id, (current) => ({ ...current, ...next }));
          if (!written) await reports.insert({ id, ...next });
        },
        { isConflict: isWriteRace },
      );
    },
    async seenOf(eventId, since) {
      const seen = new Map<string, number>();
      for (const report of await reports.find({ eventId })) {
        if (report.reportedAt.getTime() < since.getTime() - PRESENCE_KEEP_MS) {
          await reports.delete(report.id, report.version).catch(() => undefined);
          continue;
        }
        if (report.reportedAt.getTime() < since.getTime()) continue;
        report.ticketIds.forEach((ticketId, i) => {
          const at = report.seenAtMs[i] ?? 0;
          if (at > (seen.get(ticketId) ?? 0)) seen.set(ticketId, at);
        });
      }
      return seen;
    },
  };
}

/** How much older than what readers count a replica's last report is kept before removal. */
const PRESENCE_KEEP_MS = 10 * 60_000;

/**
 * The waiting room's collections (memory or Mongo, as the service's stores are):
 *
 * - `onsales`, one per event (id = event id), the admitter's lease and window in it;
 * - `queue_tickets`, one per fan and event; unique on event, app and identity (one place per
 *   identity), and indexed on event, state and order key (the admitter's next fans in order, held
 *   back or not);
 * - `queue_admissions`, the admissions in flight (`admissionsInFlight`), of every event;
 * - `queue_early_orders`, the frozen early order of an event (its sorted keys), written once;
 * - `queue_sequences`, the late-join counter of an event, and `queue_late_joins`, who took each
 *   number (`lateJoinRepository`);
 * - `queue_presence`, the fans each edge replica holds long polls for (`presenceRepository`).
 */
export function createWaitingRoomStorage(stores: ServiceStores): {
  onSales: OnSaleRepository;
  tickets: QueueTicketRepository;
  presence: QueuePresenceRepository;
} {
  const onSales = stores.collection<OnSaleDoc>('onsales');
  const early = stores.collection<EarlyOrderDoc>('queue_early_orders');
  const tickets = stores.collection<Stored<QueueTicket>>('queue_tickets', [
    { fields: { eventId: 1, appId: 1, identity: 1 }, unique: true, name: 'queue_identity_unique' },
    { fields: { eventId: 1, state: 1, orderKey: 1 } },
  ]);
  const sequences = stores.collection<SequenceDoc>('queue_sequences');
  const inFlight = admissionsInFlight(stores.collection<InFlightDoc>('queue_admissions'));
  const lateJoins = stores.collection<LateJoinDoc>('queue_late_joins');
  return {
    // A report's arrays (tens of thousands of values) go packed, as one value: FerretDB decodes and
    // encodes every value of a stored document at each read and write, and held several hundred
    // MiB while rewriting 15,000-fan reports unpacked.
    presence: presenceRepository(
      stores.collection<PresenceDoc>('queue_presence', [], { pack: { keep: ['eventId'] } }),
    ),
    onSales: {
      get: async (eventId) => {
        const doc = await onSales.get(eventId);
        return doc && { ...withoutId(doc), eventId };
      },
      insert: async (onSale) =>
        withoutId(await onSales.insert({ ...onSale, id: onSale.eventId })) as Stored<OnSaleRecord>,
      update: async (onSale, expectedVersion, happened) =>
        withoutId(
          await onSales.update(
            onSale.eventId,
            expectedVersion,
            { ...onSale, id: onSale.eventId },
            { events: outboxEventsOf(happened) },
          ),
        ) as Stored<OnSaleRecord>,
      earlyOrder: async (eventId) => (await early.get(eventId))?.keys,
      queued: async () => (await onSales.find({ queue: true })).map((doc) => doc.id),
      saveEarlyOrder: async (eventId, sortedKeys) => {
        const keys = [...sortedKeys];
        const written = await early.modify(eventId, (current) => ({ ...current, keys }));
        if (!written) await early.insert({ id: eventId, keys });
      },
    },
    tickets: ticketRepository(tickets, { sequences, lateJoins }, inFlight),
  };
}

/** `queue_tickets`, with the admissions in flight kept beside them and the late-join counter. */
function ticketRepository(
  tickets: VersionedStore<Stored<QueueTicket>>,
  { sequences, lateJoins }: LateJoinStores,
  inFlight: ReturnType<typeof admissionsInFlight>,
): QueueTicketRepository {
  return {
    ...lateJoinRepository(tickets, { sequences, lateJoins }),
    get: (id) => tickets.get(id),
    // Reads by id side by side rather than one `$in` query: FerretDB answered a `$in` of 250
    // ids over a large collection in more than the 5 s deadline (bench/onsale at 10,000 fans),
    // while reads by id use the primary key.
    getMany: async (ids) =>
      (await Promise.all(ids.map((id) => tickets.get(id)))).filter(
        (found): found is NonNullable<typeof found> => found !== undefined,
      ),
    insert: (ticket) => tickets.insert(ticket),
    async findByIdentity(eventId, appId, identity) {
      const [found] = await tickets.find({ eventId, appId, identity }, { limit: 1 });
      return found;
    },
    async update(ticket, expectedVersion, happened) {
      // Admit, spend and give back are the only writes into or out of ADMITTED.
      const admitting = ticket.state === 'ADMITTED';
      if (admitting) await inFlight.entering(ticket);
      try {
        const stored = await tickets.update(ticket.id, expectedVersion, ticket, {
          events: outboxEventsOf(happened),
        });
        if (ticket.state === 'USED') await inFlight.left(ticket.id);
        return stored;
      } catch (error) {
        // Not admitted by this write: its entry goes, unless the ticket is ADMITTED all the same
        // (a give-back that met another) or cannot be read (it stays: the cautious side).
        if (admitting) {
          const read = await tickets.get(ticket.id).then(
            (current) => current?.state ?? 'gone',
            () => 'ADMITTED',
          );
          if (read !== 'ADMITTED') await inFlight.left(ticket.id);
        }
        throw error;
      }
    },
    countAdmittedSince: (eventId, since, appId) => inFlight.count(eventId, since, appId),
    ...queueQueries(tickets),
  };
}

interface LateJoinStores {
  sequences: VersionedStore<SequenceDoc>;
  lateJoins: VersionedStore<LateJoinDoc>;
}

/**
 * The late-join counter of each event (`queue_sequences`) and who took each number
 * (`queue_late_joins`, id `<event> <sequence>`): the admitter walks the late joiners by id in
 * arrival order, as it walks the early joiners' frozen order, instead of querying the tickets.
 */
function lateJoinRepository(
  tickets: VersionedStore<Stored<QueueTicket>>,
  { sequences, lateJoins }: LateJoinStores,
): Pick<QueueTicketRepository, 'nextSequence' | 'lateJoiners'> {
  const idOf = (eventId: string, sequence: number) => `${eventId} ${sequence}`;
  return {
    async nextSequence(eventId, ticketId) {
      // A compare-and-set counter: joins after the opening come at the admission rate's pace, not
      // all at once, so its contention stays low; a lost race (or a first insert that met
      // another) reads and bumps again.
      const sequence = await retryingConflicts(
        async () => {
          const bumped = await sequences.modify(eventId, (current) => ({
            ...current,
            last: current.last + 1,
          }));
          if (bumped) return bumped.last;
          return (await sequences.insert({ id: eventId, last: 1 })).last;
        },
        { isConflict: isWriteRace },
      );
      // A number whose record is lost is found by the admitter's full look instead.
      await lateJoins.insert({ id: idOf(eventId, sequence), ticketId });
      return sequence;
    },
    async lateJoiners(eventId, from, count) {
      const last = (await sequences.get(eventId))?.last ?? 0;
      const numbers: number[] = [];
      for (let n = Math.max(1, from); n <= last && numbers.length < count; n += 1) numbers.push(n);
      const joins = await Promise.all(numbers.map((n) => lateJoins.get(idOf(eventId, n))));
      const found = await Promise.all(
        joins.map((join) => (join ? tickets.get(join.ticketId) : undefined)),
      );
      return {
        last,
        tickets: found.filter(
          (ticket, i): ticket is Stored<QueueTicket> =>
            ticket?.eventId === eventId && !ticket.early && ticket.sequence === numbers[i],
        ),
      };
    },
  };
}
