import { describe, expect, it } from 'vitest';
import type { EntryStorage } from '../src/adapters/stores.js';
import type { Admission, EntryOrder, ScanRecord, Ticket } from '../src/domain/model.js';

const at = new Date('2026-05-01T10:00:00Z');

export const aTicket = (id: string, over: Partial<Ticket> = {}): Omit<Ticket, 'version'> => ({
  id,
  orderId: 'ord-1',
  eventId: 'EV1',
  partnerTicketId: `P-${id}`,
  barcode: `40000000000${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`,
  displayId: 'XXXXXXXXXXXX0001',
  section: '101',
  row: 'C',
  seat: '7',
  generalAdmission: false,
  renderType: 'rotating_symbology',
  secret: { iv: 'aXY=', tag: 'dGFn', data: 'ZGF0YQ==' },
  generation: 1,
  generationAt: at,
  status: 'active',
  charges: [
    {
      description: 'Ticket price',
      type: 'TICKET',
      subType: 'FACE_VALUE',
      amountMinor: 5000,
      currency: 'USD',
    },
  ],
  issuedAt: at,
  ...over,
});

export const anOrder = (
  id: string,
  over: Partial<EntryOrder> = {},
): Omit<EntryOrder, 'version'> => ({
  id,
  tokenHash: `hash-${id}`,
  appId: 'app-1',
  eventId: 'EV1',
  partnerId: 'prt-1',
  customerEmail: 'fan@example.com',
  thirdPartyAccountId: 'user-42',
  delivery: { id: 'ETK', carrier: 'Marquee', serviceLevel: 'ETICKET', description: 'Mobile' },
  sandbox: false,
  secureEntry: true,
  confirmedAt: at,
  ticketIds: [],
  voided: false,
  ...over,
});

const scan = (ticketId: string, gateId: string): ScanRecord => ({
  ticketId,
  partnerTicketId: ticketId ? `P-${ticketId}` : '',
  orderId: 'ord-1',
  eventId: 'EV1',
  gateId,
  result: 'ADMITTED',
  timeStep: 100,
  scannedAt: at,
});

const admission = (
  ticketId: string,
  gateId: string,
  payloadHash = 'h1',
): Omit<Admission, 'version'> => ({
  id: ticketId,
  ticketId,
  orderId: 'ord-1',
  eventId: 'EV1',
  gateId,
  timeStep: 100,
  payloadHash,
  admittedAt: at,
});

/** The storage contract of secure-entry, run on memory (unit) and on the Mongo-wire server (integration). */
export function storageContract(name: string, fresh: () => Promise<EntryStorage>) {
  describe(`secure-entry storage contract: ${name}`, () => {
    it('stores orders and finds them by token hash; inserting twice answers false', async () => {
      const s = await fresh();
      expect(
        await s.orders.insert(
          anOrder('o1', { device: { id: 'd', type: 'web', os: 'other', boundAt: at } }),
          [],
        ),
      ).toBe(true);
      expect(await s.orders.insert(anOrder('o1'), [])).toBe(false);
      const found = await s.orders.findByTokenHash('hash-o1');
      expect(found).toMatchObject({
        id: 'o1',
        version: 1,
        confirmedAt: at,
        device: { id: 'd', boundAt: at },
      });
      expect(await s.orders.findByTokenHash('hash-none')).toBeUndefined();
    });

    it('updates orders by compare-and-set', async () => {
      const s = await fresh();
      await s.orders.insert(anOrder('o2'), []);
      const current = (await s.orders.get('o2'))!;
      const bound = await s.orders.update({
        ...current,
        device: { id: 'd1', type: 'native', os: 'ios', boundAt: at },
      });
      expect(bound.version).toBe(2);
      await expect(
        s.orders.update({
          ...current,
          device: { id: 'd2', type: 'native', os: 'ios', boundAt: at },
        }),
      ).rejects.toMatchObject({
        kind: 'aborted',
      });
      expect((await s.orders.get('o2'))?.device?.id).toBe('d1');
    });

    it('inserts tickets once, keeps barcodes unique, lists by order and finds active by partner id', async () => {
      const s = await fresh();
      const t1 = await s.tickets.insertIfAbsent(aTicket('o1-t1', { barcode: '4000000000000001' }));
      const again = await s.tickets.insertIfAbsent(
        aTicket('o1-t1', { barcode: '4000000000000009' }),
      );
      expect(again.barcode).toBe(t1.barcode);
      await expect(
        s.tickets.insertIfAbsent(aTicket('o1-t2', { barcode: '4000000000000001' })),
      ).rejects.toMatchObject({
        kind: 'already_exists',
      });
      await s.tickets.insertIfAbsent(aTicket('o1-t2', { barcode: '4000000000000002' }));
      await s.tickets.insertIfAbsent(
        aTicket('o9-t1', { orderId: 'o9', barcode: '4000000000000003' }),
      );
      expect((await s.tickets.listByOrder('ord-1')).map((t) => t.id)).toEqual(['o1-t1', 'o1-t2']);
      expect((await s.tickets.getByBarcode('4000000000000002'))?.id).toBe('o1-t2');
      const t2 = (await s.tickets.get('o1-t2'))!;
      await s.tickets.update(
        { ...t2, status: 'voided', voidReason: 'RESOLD', voidedAt: at },
        { reason: 'RESOLD', at },
      );
      expect((await s.tickets.findActive('EV1', ['P-o1-t1', 'P-o1-t2'])).map((t) => t.id)).toEqual([
        'o1-t1',
      ]);
      expect(await s.tickets.findActive('EV1', [])).toEqual([]);
      expect(
        (await s.tickets.findBySeats('EV1', ['P-o1-t1', 'P-o1-t2'])).map((t) => t.id).sort(),
      ).toEqual(['o1-t1', 'o1-t2']);
      expect(await s.tickets.findBySeats('EV1', [])).toEqual([]);
    });

    it('admits a ticket exactly once however many gates try at the same time', async () => {
      const s = await fresh();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          s.admissions.admit(admission('tk-race', `g${i}`, `h${i}`), scan('tk-race', `g${i}`)),
        ),
      );
      const winners = results.filter((r) => r === undefined);
      expect(winners).toHaveLength(1);
      const stored = (await s.admissions.get('tk-race'))!;
      for (const loser of results.filter((r) => r !== undefined)) expect(loser).toEqual(stored);
    });

    it('finds the admitted seats of an event by partner ticket id', async () => {
      const s = await fresh();
      const seat = (id: string, eventId: string, partnerTicketId: string) => ({
        ...admission(id, 'g1'),
        id: `seat|${eventId}|${partnerTicketId}`,
        eventId,
        partnerTicketId,
      });
      await s.admissions.admit(seat('o1-t1', 'EV1', 'P1'), scan('o1-t1', 'g1'));
      await s.admissions.admit(seat('o1-t2', 'EV1', 'P2'), scan('o1-t2', 'g1'));
      await s.admissions.admit(seat('o9-t1', 'EV2', 'P3'), scan('o9-t1', 'g1'));
      const found = await s.admissions.findSeats('EV1', ['P1', 'P3', 'P4']);
      expect(found.map((a) => [a.ticketId, a.partnerTicketId])).toEqual([['o1-t1', 'P1']]);
      expect(await s.admissions.findSeats('EV1', [])).toEqual([]);
    });

    it('keeps the newest event start', async () => {
      const s = await fresh();
      await s.events.apply({ id: 'E', eventVersion: 2, startsAt: at, deleted: false });
      await s.events.apply({ id: 'E', eventVersion: 1, startsAt: new Date(0), deleted: false });
      expect((await s.events.get('E'))?.startsAt).toEqual(at);
      await s.events.apply({ id: 'E', eventVersion: 3, deleted: true });
      expect(await s.events.get('E')).toMatchObject({ eventVersion: 3, deleted: true });
    });

    it('stores gates and lists them newest first, by event', async () => {
      const s = await fresh();
      await s.gates.insert({
        id: 'g1',
        name: 'A',
        eventId: 'E1',
        secretHash: 'x',
        createdAt: new Date(1000),
      });
      await s.gates.insert({
        id: 'g2',
        name: 'B',
        eventId: 'E1',
        secretHash: 'y',
        createdAt: new Date(2000),
      });
      await s.gates.insert({
        id: 'g3',
        name: 'C',
        eventId: 'E2',
        secretHash: 'z',
        createdAt: new Date(3000),
      });
      expect((await s.gates.list('E1')).map((g) => g.id)).toEqual(['g2', 'g1']);
      expect((await s.gates.list()).map((g) => g.id)).toEqual(['g3', 'g2', 'g1']);
      await s.scans.record('scan-1', { ...scan('', 'g1'), result: 'FORGED' });
    });
  });
}
