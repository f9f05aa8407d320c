import { AppError } from '@marquee/platform/errors';
import { isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import type { VersionedStore } from '@marquee/platform/store';
import type { SandboxInventory } from '../app/ports.js';
import type { HeldTicket } from '../domain/cart.js';
import { withoutVersion } from '@marquee/platform/kernel';

interface SandboxHold {
  cartId: string;
  quantity: number;
  seats: string[];
  expiresAt: Date;
}

/** One area of an event's sandbox inventory: capacity, sold count and live holds. */
export interface SandboxAreaDoc {
  id: string;
  version: number;
  eventId: string;
  areaId: string;
  generalAdmission: boolean;
  capacity: number;
  sold: number;
  /** Next seat number given out (sandbox seats are numbered in order and never reused). */
  nextSeat: number;
  holds: SandboxHold[];
}

type AreaState = Omit<SandboxAreaDoc, 'version'>;
type HoldInput = Parameters<SandboxInventory['hold']>[0];
type HoldLine = HoldInput['lines'][number];
type HoldArea = HoldInput['areas'][number];
type SandboxTicket = Omit<HeldTicket, 'faceValueMinor' | 'areaDescription'>;

const sandboxId = (eventId: string, areaId: string) => `${eventId}:${areaId}`;

const noSandboxInventory = () =>
  new AppError('resource_exhausted', 'the sandbox inventory cannot hold these tickets', {
    details: { reason: '20052' },
  });

/**
 * The sandbox inventory over the store: a hold is a compare-and-set on its area's document, which
 * counts sold tickets and live holds (expired holds no longer count), so concurrent sandbox carts
 * never oversell an area either.
 */
class StoredSandboxInventory implements SandboxInventory {
  constructor(
    private readonly store: VersionedStore<SandboxAreaDoc>,
    private readonly defaultCapacity: number,
  ) {}

  async hold({
    eventId,
    cartId,
    lines,
    areas,
    expiresAt,
    now,
  }: HoldInput): Promise<SandboxTicket[]> {
    // A resumed attempt starts from nothing: holds of an earlier attempt are given back first.
    await this.release(eventId, cartId);
    const tickets: SandboxTicket[] = [];
    for (const line of lines) {
      const found = await this.#holdLine({ eventId, cartId, expiresAt, now }, line, areas);
      if (!found) {
        await this.release(eventId, cartId);
        throw noSandboxInventory();
      }
      const { held, area } = found;
      for (let i = 0; i < line.quantity; i += 1) {
        tickets.push({
          ticketId: `${cartId}-${tickets.length + 1}`,
          areaId: area.areaId,
          section: area.sectionId,
          row: area.generalAdmission ? '' : 'SBX',
          seat: held.seats[i] ?? '',
          priceLevelId: area.priceLevelId,
          priceTypeId: line.priceTypeId,
          generalAdmission: area.generalAdmission,
        });
      }
    }
    return tickets;
  }

  async release(eventId: string, cartId: string): Promise<void> {
    const docs = await this.store.find({ eventId });
    for (const doc of docs) {
      if (!doc.holds.some((h) => h.cartId === cartId)) continue;
      await this.#change(
        doc.id,
        () => withoutVersion(doc),
        (d) => ({
          ...d,
          holds: d.holds.filter((h) => h.cartId !== cartId),
        }),
      );
    }
  }

  async sell(eventId: string, cartId: string): Promise<void> {
    const docs = await this.store.find({ eventId });
    for (const doc of docs) {
      if (!doc.holds.some((h) => h.cartId === cartId)) continue;
      await this.#change(
        doc.id,
        () => withoutVersion(doc),
        (d) => {
          const mine = d.holds.filter((h) => h.cartId === cartId);
          if (mine.length === 0) return undefined;
          return {
            ...d,
            sold: d.sold + mine.reduce((s, h) => s + h.quantity, 0),
            holds: d.holds.filter((h) => h.cartId !== cartId),
          };
        },
      );
    }
  }

  /** Holds one line in the first of its areas with room; `undefined` when none has. */
  async #holdLine(
    hold: { eventId: string; cartId: string; expiresAt: Date; now: Date },
    line: HoldLine,
    areas: readonly HoldArea[],
  ): Promise<{ held: SandboxHold; area: HoldArea } | undefined> {
    for (const areaId of line.areaIds) {
      const area = areas.find((a) => a.areaId === areaId);
      if (!area) continue;
      let held: SandboxHold | undefined;
      const written = await this.#change(
        sandboxId(hold.eventId, areaId),
        () => this.#newArea(hold.eventId, area),
        (doc) => {
          const live = doc.holds.filter((h) => h.expiresAt.getTime() > hold.now.getTime());
          const taken = doc.sold + live.reduce((s, h) => s + h.quantity, 0);
          if (doc.capacity - taken < line.quantity) return undefined;
          const seats = doc.generalAdmission
            ? []
            : Array.from({ length: line.quantity }, (_, i) => String(doc.nextSeat + i));
          held = { cartId: hold.cartId, quantity: line.quantity, seats, expiresAt: hold.expiresAt };
          return {
            ...doc,
            nextSeat: doc.nextSeat + (doc.generalAdmission ? 0 : line.quantity),
            holds: [...doc.holds, held],
          };
        },
      );
      if (written && held) return { held, area };
    }
    return undefined;
  }

  /** An area never held before: its capacity is the partner's, else the default. */
  #newArea(eventId: string, area: HoldArea): AreaState {
    const total = area.available + area.unavailable;
    return {
      id: sandboxId(eventId, area.areaId),
      eventId,
      areaId: area.areaId,
      generalAdmission: area.generalAdmission,
      capacity: total > 0 ? total : this.defaultCapacity,
      sold: 0,
      nextSeat: 1,
      holds: [],
    };
  }

  /** Read, apply, compare-and-set; retried when another writer won. */
  async #change(
    id: string,
    create: () => AreaState,
    apply: (doc: AreaState) => AreaState | undefined,
  ): Promise<AreaState | undefined> {
    return retryingConflicts(
      async () => {
        const stored = await this.store.get(id);
        const current = stored ? withoutVersion(stored) : create();
        const next = apply(structuredClone(current));
        if (!next) return undefined;
        if (stored) await this.store.update(id, stored.version, next);
        else await this.store.insert(next);
        return next;
      },
      { isConflict: isWriteRace },
    );
  }
}

/** The sandbox inventory over its store; an area never seen holds `defaultCapacity`. */
export function sandboxInventory(
  store: VersionedStore<SandboxAreaDoc>,
  defaultCapacity: number,
): SandboxInventory {
  return new StoredSandboxInventory(store, defaultCapacity);
}
