import { DEVELOPMENT_CONTACT_KEYS } from '@marquee/proto/order-contact';
import { randomBytes } from 'node:crypto';
import { decodeToken, payloadAt, STEP_SECONDS } from '@marquee/render-kit/format';
import { metricValue } from '@marquee/platform/testing';
import type { entryV1 } from '@marquee/proto';
import { describe, expect, it } from 'vitest';
import { createEntryCrypto } from '../src/adapters/entry-crypto.js';
import { secureEntryGrpc } from '../src/ports/grpc/secure-entry-grpc.js';
import { toConfirmedOrder } from '../src/ports/kafka/handlers.js';
import {
  confirmedOrder,
  device,
  EVENT_ID,
  harness,
  OTHER_EVENT_ID,
  testKeys,
  type Harness,
} from './support/fixtures.js';

const STEP_MS = STEP_SECONDS * 1000;

async function bought(h: Harness, over: Parameters<typeof confirmedOrder>[0] = {}) {
  const { message, orderToken } = confirmedOrder(over);
  await h.entry.confirm(toConfirmedOrder(message, DEVELOPMENT_CONTACT_KEYS));
  return { message, orderToken };
}

async function read(
  h: Harness,
  orderToken: string,
  over: Partial<{ deviceId: string; user: string }> = {},
) {
  return h.entry.getOrder({
    orderToken,
    appId: 'app-1',
    device: { ...device, id: over.deviceId ?? device.id },
    thirdPartyAccountId: over.user ?? 'user-42',
    sandbox: false,
  });
}

async function gateFor(h: Harness, eventId = EVENT_ID) {
  return (await h.entry.createGate({ name: 'North 1', eventId })).token;
}

describe('issuing', () => {
  it('issues one ticket per seat with a numeric barcode, a masked display id and an encrypted secret', async () => {
    const h = harness();
    const { message } = await bought(h, { seats: ['7', '8', '9'] });
    const tickets = await h.storage.tickets.listByOrder(message.orderId);
    expect(tickets).toHaveLength(3);
    for (const t of tickets) {
      expect(t.barcode).toMatch(/^[1-9]\d{15}$/);
      expect(t.displayId).toBe(`XXXXXXXXXXXX${t.barcode.slice(-4)}`);
      expect(t.renderType).toBe('rotating_symbology');
      expect(Object.keys(t.secret).sort()).toEqual(['data', 'iv', 'kid', 'tag']);
      expect(JSON.stringify(t)).not.toMatch(/"secret":"[A-Za-z0-9+/=]{44}"/);
    }
    expect(new Set(tickets.map((t) => t.barcode)).size).toBe(3);
    // Fees spread over the tickets, the remainder on the first: 301 = 101 + 100 + 100.
    expect(tickets.map((t) => t.charges.find((c) => c.type === 'FEE')?.amountMinor)).toEqual([
      101, 100, 100,
    ]);
  });

  it('is idempotent: a redelivered order-confirmed keeps the same tickets', async () => {
    const h = harness();
    const { message } = await bought(h);
    const first = await h.storage.tickets.listByOrder(message.orderId);
    await h.entry.confirm(toConfirmedOrder(message, DEVELOPMENT_CONTACT_KEYS));
    expect(await h.storage.tickets.listByOrder(message.orderId)).toEqual(first);
  });

  it('issues static barcode tickets for events without secure entry', async () => {
    const h = harness();
    const { message, orderToken } = await bought(h, {
      secureEntryEnabled: false,
      thirdPartyAccountId: '',
    });
    const view = await read(h, orderToken, { user: 'anyone' });
    expect(view.tickets.map((t) => t.ticket.renderType)).toEqual(['barcode', 'barcode']);
    const token = decodeToken(view.tickets[0]!.token);
    expect(token.rotatingSecrets).toEqual([]);
    const gate = await gateFor(h);
    expect((await h.entry.validateScan(gate, payloadAt(token, h.clock.now.getTime()))).result).toBe(
      'ADMITTED',
    );
    expect((await h.entry.validateScan(gate, payloadAt(token, h.clock.now.getTime()))).result).toBe(
      'REPLAYED',
    );
    expect(message.orderId).toBeTruthy();
  });
});

describe('order read', () => {
  it('answers tokens that decode to the ticket barcode and event', async () => {
    const h = harness();
    const { message, orderToken } = await bought(h);
    const view = await read(h, orderToken);
    expect(view.order.id).toBe(message.orderId);
    expect(view.order.customerEmail).toBe('fan@example.com');
    expect(view.order.device?.id).toBe('device-1');
    for (const t of view.tickets) {
      const token = decodeToken(t.token);
      expect(token.barcode).toBe(t.ticket.barcode);
      expect(token.eventId).toBe(EVENT_ID);
      expect(token.rotatingSecrets).toHaveLength(2);
      expect(t.error).toBeUndefined();
    }
  });

  it('refuses an unknown token, another account and another device', async () => {
    const h = harness();
    const { orderToken } = await bought(h);
    await expect(read(h, 'not-a-token')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(read(h, orderToken, { user: 'someone-else' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    await read(h, orderToken);
    await expect(read(h, orderToken, { deviceId: 'device-2' })).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    // The bound device reads again.
    expect((await read(h, orderToken)).tickets).toHaveLength(2);
  });

  it('finds sandbox orders only through the pre-production variant', async () => {
    const h = harness();
    const { orderToken } = await bought(h, { sandbox: true });
    await expect(read(h, orderToken)).rejects.toMatchObject({ kind: 'not_found' });
    const view = await h.entry.getOrder({
      orderToken,
      appId: 'app-1',
      device,
      thirdPartyAccountId: 'user-42',
      sandbox: true,
    });
    expect(view.order.sandbox).toBe(true);
  });

  it('withholds tokens during delayed delivery and says from when', async () => {
    const h = harness({ delayHours: 48 });
    const startsAt = new Date('2026-06-01T19:00:00Z');
    await h.entry.eventChanged({ id: EVENT_ID, eventVersion: 3, startsAt, deleted: false });
    const { orderToken } = await bought(h);
    const view = await read(h, orderToken);
    expect(view.tokenAvailableAt).toEqual(new Date('2026-05-30T19:00:00Z'));
    expect(view.tickets.every((t) => t.token === '' && t.error?.code === 425)).toBe(true);
    h.clock.set(new Date('2026-05-30T19:00:01Z'));
    const later = await read(h, orderToken);
    expect(later.tokenAvailableAt).toBeUndefined();
    expect(later.tickets.every((t) => t.token !== '')).toBe(true);
  });
});

describe('gate validation', () => {
  async function ready(h: Harness) {
    const { message, orderToken } = await bought(h);
    const view = await read(h, orderToken);
    const token = decodeToken(view.tickets[0]!.token);
    return { message, orderToken, token, view, gate: await gateFor(h) };
  }

  it('admits a current payload once and refuses its replay', async () => {
    const h = harness();
    const { token, gate } = await ready(h);
    const payload = payloadAt(token, h.clock.now.getTime());
    const first = await h.entry.validateScan(gate, payload);
    expect(first.result).toBe('ADMITTED');
    expect(first.admittedAt).toEqual(h.clock.now);
    expect((await h.entry.validateScan(gate, payload)).result).toBe('REPLAYED');
    // A fresh payload of the same ticket, a step later, at another gate: already in.
    h.clock.advance(STEP_MS);
    const other = await gateFor(h);
    const again = await h.entry.validateScan(other, payloadAt(token, h.clock.now.getTime()));
    expect(again.result).toBe('ALREADY_ADMITTED');
    expect(again.admittedBy).toBe(first.gate.id);
  });

  it('counts gate scans by result at the gRPC port (marquee_gate_scans_total)', async () => {
    const h = harness();
    const { token, gate } = await ready(h);
    const validateScan = secureEntryGrpc(h.entry).implementation['validateScan'] as (
      call: { request: entryV1.ValidateScanRequest },
      callback: (error: unknown, response?: entryV1.ValidateScanResponse) => void,
    ) => void;
    const scan = (payload: string) =>
      new Promise<unknown>((resolve, reject) =>
        validateScan(
          { request: { gateToken: gate, payload } as entryV1.ValidateScanRequest },
          (error, response) => (error ? reject(error as Error) : resolve(response)),
        ),
      );
    const count = async (result: string) =>
      (await metricValue(`marquee_gate_scans_total{result="${result}"}`)) ?? 0;
    const [admitted, replayed] = [await count('admitted'), await count('replayed')];
    const payload = payloadAt(token, h.clock.now.getTime());
    await scan(payload);
    await scan(payload);
    await scan(payload);
    expect(await count('admitted')).toBe(admitted + 1);
    expect(await count('replayed')).toBe(replayed + 2);
  });

  it('accepts one step of drift either way and refuses two', async () => {
    const h = harness();
    const { token, view } = await ready(h);
    const now = h.clock.now.getTime();
    const gate = await gateFor(h);
    expect((await h.entry.validateScan(gate, payloadAt(token, now - 2 * STEP_MS))).result).toBe(
      'EXPIRED',
    );
    expect((await h.entry.validateScan(gate, payloadAt(token, now + 2 * STEP_MS))).result).toBe(
      'EXPIRED',
    );
    expect((await h.entry.validateScan(gate, payloadAt(token, now - STEP_MS))).result).toBe(
      'ADMITTED',
    );
    const second = decodeToken(view.tickets[1]!.token);
    expect((await h.entry.validateScan(gate, payloadAt(second, now + STEP_MS))).result).toBe(
      'ADMITTED',
    );
  });

  it('refuses forged payloads: wrong codes, altered fixed part, static form, garbage', async () => {
    const h = harness();
    const { token, gate } = await ready(h);
    const payload = payloadAt(token, h.clock.now.getTime());
    const parts = payload.split(':');
    const wrongCode = [...parts];
    wrongCode[2] = wrongCode[2] === '000000' ? '000001' : '000000';
    // A character before the last: all six of its bits are data, so the sealed bytes change.
    const altered = [...parts];
    const at = 10;
    altered[1] = `${altered[1]!.slice(0, at)}${altered[1]![at] === 'A' ? 'B' : 'A'}${altered[1]!.slice(at + 1)}`;
    // The same sealed bytes spelled otherwise: a stray character, and (when the last character
    // carries unused bits) another last character.
    const stray = [...parts];
    stray[1] = `${stray[1]!.slice(0, at)}.${stray[1]!.slice(at)}`;
    const spelledOtherwise = [stray.join(':')];
    if (parts[1]!.length % 4 !== 0) {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(parts[1]!.at(-1)!);
      const unusedBitFlipped = [...parts];
      unusedBitFlipped[1] = `${parts[1]!.slice(0, -1)}${alphabet[last ^ 1]}`;
      spelledOtherwise.push(unusedBitFlipped.join(':'));
    }
    for (const forged of [
      wrongCode.join(':'),
      altered.join(':'),
      ...spelledOtherwise,
      `MQ1:${token.fixed}`,
      'garbage',
      `MQ1:${token.fixed}:123456:654321:abc`,
    ]) {
      expect((await h.entry.validateScan(gate, forged)).result, forged).toBe('FORGED');
    }
    expect((await h.entry.validateScan(gate, payload)).result).toBe('ADMITTED');
  });

  it('refuses a ticket of another event', async () => {
    const h = harness();
    const { token } = await ready(h);
    const elsewhere = await gateFor(h, OTHER_EVENT_ID);
    expect(
      (await h.entry.validateScan(elsewhere, payloadAt(token, h.clock.now.getTime()))).result,
    ).toBe('WRONG_EVENT');
  });

  it('refuses unknown and revoked gates', async () => {
    const h = harness();
    const { token } = await ready(h);
    const payload = payloadAt(token, h.clock.now.getTime());
    await expect(
      h.entry.validateScan('mqg_nope.xxxxxxxxxxxxxxxxxxxxxxxx', payload),
    ).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
    const created = await h.entry.createGate({ name: 'Door', eventId: EVENT_ID });
    await h.entry.revokeGate(created.gate.id);
    await expect(h.entry.validateScan(created.token, payload)).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
    const [secretless] = created.token.split('.');
    await expect(
      h.entry.validateScan(`${secretless}.${'A'.repeat(43)}`, payload),
    ).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
  });

  it('refuses every ticket of a cancelled order, and a redelivered cancel changes nothing', async () => {
    const h = harness();
    const { message, token, gate } = await ready(h);
    await h.entry.cancel(message.orderId, EVENT_ID, h.clock.now);
    await h.entry.cancel(message.orderId, EVENT_ID, h.clock.now);
    expect((await h.entry.validateScan(gate, payloadAt(token, h.clock.now.getTime()))).result).toBe(
      'VOIDED',
    );
    const tickets = await h.storage.tickets.listByOrder(message.orderId);
    expect(tickets.every((t) => t.status === 'voided' && t.voidReason === 'ORDER_CANCELLED')).toBe(
      true,
    );
  });

  it('voids the tickets before the order, and a cancel resumed after a crash still records them', async () => {
    const h = harness();
    const { message, orderToken } = await ready(h);
    const update = h.storage.orders.update.bind(h.storage.orders);
    const seen: { statuses: string[]; ticketIds: string[] }[] = [];
    let crash = true;
    h.storage.orders.update = async (order, voided) => {
      const tickets = await h.storage.tickets.listByOrder(message.orderId);
      seen.push({ statuses: tickets.map((t) => t.status), ticketIds: voided?.ticketIds ?? [] });
      if (crash) {
        crash = false;
        throw new Error('process stopped');
      }
      return update(order, voided);
    };
    await expect(h.entry.cancel(message.orderId, EVENT_ID, h.clock.now)).rejects.toThrow(
      'process stopped',
    );
    // The order still reads as live, but none of its tickets would pass a gate any more.
    expect((await read(h, orderToken)).order.voided).toBe(false);
    await h.entry.cancel(message.orderId, EVENT_ID, h.clock.now);
    expect((await read(h, orderToken)).order.voided).toBe(true);
    const ids = (await h.storage.tickets.listByOrder(message.orderId)).map((t) => t.id);
    // At each voiding write every ticket was already voided, and the redelivery names them all.
    expect(seen).toEqual([
      { statuses: ['voided', 'voided'], ticketIds: ids },
      { statuses: ['voided', 'voided'], ticketIds: ids },
    ]);
  });

  it('issues nothing for an order whose cancel arrived first', async () => {
    const h = harness();
    const { message, orderToken } = confirmedOrder();
    await h.entry.cancel(message.orderId, EVENT_ID, h.clock.now);
    await h.entry.confirm(toConfirmedOrder(message, DEVELOPMENT_CONTACT_KEYS));
    expect(await h.storage.tickets.listByOrder(message.orderId)).toEqual([]);
    await expect(read(h, orderToken)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('after a resale admits only the new owner', async () => {
    const h = harness();
    const { message, token: oldToken, gate, orderToken: oldOrderToken } = await ready(h);
    const oldTickets = await h.storage.tickets.listByOrder(message.orderId);
    const resold = oldTickets[0]!;
    const { orderToken } = await bought(h, {
      seats: ['7'],
      thirdPartyAccountId: 'user-99',
      resoldTicketIds: [resold.partnerTicketId],
      resoldFromOrderId: message.orderId,
    });
    const newView = await h.entry.getOrder({
      orderToken,
      appId: 'app-1',
      device: { ...device, id: 'device-new' },
      thirdPartyAccountId: 'user-99',
      sandbox: false,
    });
    const newToken = decodeToken(newView.tickets[0]!.token);
    expect(newToken.barcode).not.toBe(oldToken.barcode);
    const now = h.clock.now.getTime();
    expect((await h.entry.validateScan(gate, payloadAt(oldToken, now))).result).toBe('VOIDED');
    expect((await h.entry.validateScan(gate, payloadAt(newToken, now))).result).toBe('ADMITTED');
    // The old owner's other ticket was not resold and still admits.
    expect((await h.storage.tickets.get(oldTickets[1]!.id))?.status).toBe('active');
    const other = decodeToken((await read(h, oldOrderToken)).tickets[1]!.token);
    expect((await h.entry.validateScan(gate, payloadAt(other, now))).result).toBe('ADMITTED');
  });

  it("voids the seller's ticket before the buyer's is issued", async () => {
    const h = harness();
    const { message } = await ready(h);
    const resold = (await h.storage.tickets.listByOrder(message.orderId))[0]!;
    const insert = h.storage.tickets.insertIfAbsent.bind(h.storage.tickets);
    const sellerStatusAtIssue: string[] = [];
    h.storage.tickets.insertIfAbsent = async (ticket) => {
      sellerStatusAtIssue.push((await h.storage.tickets.get(resold.id))!.status);
      return insert(ticket);
    };
    await bought(h, {
      seats: ['7'],
      thirdPartyAccountId: 'user-99',
      resoldTicketIds: [resold.partnerTicketId],
      resoldFromOrderId: message.orderId,
    });
    expect(sellerStatusAtIssue).toEqual(['voided']);
  });

  it('lets exactly one of many concurrent gates admit a ticket', async () => {
    const h = harness();
    const { token } = await ready(h);
    const gates = await Promise.all(Array.from({ length: 8 }, () => gateFor(h)));
    const now = h.clock.now.getTime();
    const results = await Promise.all(
      gates.map((g, i) => h.entry.validateScan(g, payloadAt(token, now + (i % 2 ? STEP_MS : 0)))),
    );
    expect(results.filter((r) => r.result === 'ADMITTED')).toHaveLength(1);
    expect(
      results.every((r) => ['ADMITTED', 'REPLAYED', 'ALREADY_ADMITTED'].includes(r.result)),
    ).toBe(true);
  });

  it('re-keys tokens shown within 20 hours of the start: the earlier token stops admitting', async () => {
    const h = harness();
    const startsAt = new Date('2026-06-01T19:00:00Z');
    await h.entry.eventChanged({ id: EVENT_ID, eventVersion: 1, startsAt, deleted: false });
    const { token: early, orderToken, gate } = await ready(h);
    h.clock.set(new Date('2026-06-01T12:00:00Z'));
    const view = await read(h, orderToken);
    const late = decodeToken(view.tickets[0]!.token);
    expect(late.rotatingSecrets).not.toEqual(early.rotatingSecrets);
    const now = h.clock.now.getTime();
    expect((await h.entry.validateScan(gate, payloadAt(early, now))).result).toBe('SUPERSEDED');
    // Shown again later: no second re-key.
    h.clock.advance(60_000);
    const again = decodeToken((await read(h, orderToken)).tickets[0]!.token);
    expect(again.rotatingSecrets).toEqual(late.rotatingSecrets);
    expect((await h.entry.validateScan(gate, payloadAt(again, h.clock.now.getTime()))).result).toBe(
      'ADMITTED',
    );
  });

  it('keeps older events from moving an event start backwards', async () => {
    const h = harness();
    await h.entry.eventChanged({
      id: 'E1',
      eventVersion: 5,
      startsAt: new Date('2026-07-01T00:00:00Z'),
      deleted: false,
    });
    await h.entry.eventChanged({
      id: 'E1',
      eventVersion: 4,
      startsAt: new Date('2026-01-01T00:00:00Z'),
      deleted: false,
    });
    expect((await h.storage.events.get('E1'))?.startsAt).toEqual(new Date('2026-07-01T00:00:00Z'));
  });
});

describe('secure render', () => {
  it('gives a new token for the same barcode, and per-ticket errors', async () => {
    const h = harness();
    const { orderToken } = await bought(h);
    const view = await read(h, orderToken);
    const t = view.tickets[0]!.ticket;
    const pick = (x: typeof t) => ({
      eventId: x.eventId,
      section: x.section,
      row: x.row,
      seat: x.seat,
      barcode: x.barcode,
    });
    const asked = pick(t);
    h.clock.advance(1_000);
    const rendered = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device,
      sandbox: false,
      tickets: [
        asked,
        { ...asked, row: '' },
        { ...asked, barcode: '9999999999999999' },
        { ...asked, seat: '99' },
      ],
    });
    expect(rendered[0]!.refusal).toBeUndefined();
    expect(rendered[0]!.token).not.toBe(view.tickets[0]!.token);
    // The wallet pass id is the ticket's: the same on every render, another for another ticket.
    expect(rendered[0]!.pkPassId).toMatch(/^[0-9a-f]{32}$/);
    expect(rendered.slice(1).map((r) => r.pkPassId)).toEqual(['', '', '']);
    h.clock.advance(1_000);
    const again = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device,
      sandbox: false,
      tickets: [asked, pick(view.tickets[1]!.ticket)],
    });
    expect(again[0]!.pkPassId).toBe(rendered[0]!.pkPassId);
    expect(again[1]!.refusal).toBeUndefined();
    expect(again[1]!.pkPassId).toMatch(/^[0-9a-f]{32}$/);
    expect(again[1]!.pkPassId).not.toBe(rendered[0]!.pkPassId);
    expect(decodeToken(rendered[0]!.token).barcode).toBe(t.barcode);
    expect(rendered.slice(1).map((r) => r.refusal)).toEqual([
      { code: 400, error: 'missing.row.attribute' },
      { code: 404, error: 'ticket.not.found' },
      { code: 409, error: 'mismatch.seat.attribute' },
    ]);
    const stranger = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-1',
      device,
      sandbox: false,
      tickets: [asked],
    });
    expect(stranger[0]!.refusal).toEqual({ code: 403, error: 'user.not.authorized' });
    const otherDevice = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device: { ...device, id: 'device-2' },
      sandbox: false,
      tickets: [asked],
    });
    expect(otherDevice[0]!.refusal).toEqual({ code: 403, error: 'device.not.authorized' });
  });
});

describe('sandbox orders at the gates', () => {
  const preprod = (h: Harness, orderToken: string) =>
    h.entry.getOrder({
      orderToken,
      appId: 'app-1',
      device,
      thirdPartyAccountId: 'user-42',
      sandbox: true,
    });

  it('never admits a pre-production ticket, from the order read or the staging render', async () => {
    const h = harness();
    const { message, orderToken } = await bought(h, { sandbox: true });
    const view = await preprod(h, orderToken);
    const token = decodeToken(view.tickets[0]!.token);
    expect(token.eventId).toBe(EVENT_ID);
    const gate = await gateFor(h);
    const payload = payloadAt(token, h.clock.now.getTime());
    const first = await h.entry.validateScan(gate, payload);
    expect(first.result).toBe('SANDBOX');
    // Refused again, never as a replay of an admission: nothing was admitted.
    expect((await h.entry.validateScan(gate, payload)).result).toBe('SANDBOX');
    const t = view.tickets[0]!.ticket;
    const [rendered] = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device,
      sandbox: true,
      tickets: [
        { eventId: t.eventId, section: t.section, row: t.row, seat: t.seat, barcode: t.barcode },
      ],
    });
    expect(rendered!.refusal).toBeUndefined();
    const staged = payloadAt(decodeToken(rendered!.token), h.clock.now.getTime());
    expect((await h.entry.validateScan(gate, staged)).result).toBe('SANDBOX');
    const seats = message.tickets.map((s) => s.ticketId);
    expect(await h.entry.admittedSeats(EVENT_ID, seats)).toEqual([]);
  });

  it('refuses a sandbox ticket by its order when the seal does not say sandbox', async () => {
    const h = harness();
    const { orderToken } = await bought(h, { sandbox: true });
    const view = await preprod(h, orderToken);
    const token = decodeToken(view.tickets[0]!.token);
    // A token sealed without the marker (as every token was before the seal carried it).
    const crypto = createEntryCrypto({ tokenKeys: testKeys(), secretKeys: [randomBytes(32)] });
    const opened = crypto.open(token.fixed)!;
    expect(opened.sandbox).toBe(true);
    const unmarked = { ...token, fixed: crypto.seal({ ...opened, sandbox: false }) };
    const gate = await gateFor(h);
    const result = await h.entry.validateScan(gate, payloadAt(unmarked, h.clock.now.getTime()));
    expect(result.result).toBe('SANDBOX');
    expect(result.ticket?.id).toBe(view.tickets[0]!.ticket.id);
  });

  it('seals production tokens without the marker', async () => {
    const h = harness();
    const { orderToken } = await bought(h);
    const token = decodeToken((await read(h, orderToken)).tickets[0]!.token);
    const crypto = createEntryCrypto({ tokenKeys: testKeys(), secretKeys: [randomBytes(32)] });
    expect(crypto.open(token.fixed)?.sandbox).toBe(false);
  });
});

describe('the calling app', () => {
  const asked = (t: {
    eventId: string;
    section: string;
    row: string;
    seat: string;
    barcode: string;
  }) => ({
    eventId: t.eventId,
    section: t.section,
    row: t.row,
    seat: t.seat,
    barcode: t.barcode,
  });

  it("answers another app's order read as unknown and binds no device", async () => {
    const h = harness();
    const { message, orderToken } = await bought(h);
    await expect(
      h.entry.getOrder({
        orderToken,
        appId: 'app-2',
        device: { ...device, id: 'device-of-app-2' },
        thirdPartyAccountId: 'user-42',
        sandbox: false,
      }),
    ).rejects.toMatchObject({ kind: 'not_found', details: { reason: 'order_not_found' } });
    expect((await h.storage.orders.get(message.orderId))?.device).toBeUndefined();
    // The selling app's device is then the one bound.
    const view = await read(h, orderToken);
    expect(view.order.device?.id).toBe(device.id);
  });

  it('renders no ticket for another app and binds no device', async () => {
    const h = harness();
    const { message } = await bought(h);
    const [ticket] = await h.storage.tickets.listByOrder(message.orderId);
    const [refused] = await h.entry.secureRender({
      appId: 'app-2',
      userId: 'user-42',
      device: { ...device, id: 'device-of-app-2' },
      sandbox: false,
      tickets: [asked(ticket!)],
    });
    expect(refused).toMatchObject({ token: '', refusal: { code: 404, error: 'ticket.not.found' } });
    expect((await h.storage.orders.get(message.orderId))?.device).toBeUndefined();
    const [rendered] = await h.entry.secureRender({
      appId: 'app-1',
      userId: 'user-42',
      device,
      sandbox: false,
      tickets: [asked(ticket!)],
    });
    expect(rendered!.refusal).toBeUndefined();
  });

  it("after a resale answers the buyer's app, not the seller's", async () => {
    const h = harness();
    const { message } = await bought(h);
    const [sold] = await h.storage.tickets.listByOrder(message.orderId);
    const { orderToken, message: resale } = await bought(h, {
      seats: ['7'],
      appId: 'app-2',
      thirdPartyAccountId: 'user-99',
      resoldTicketIds: [sold!.partnerTicketId],
      resoldFromOrderId: message.orderId,
    });
    const asBuyer = { orderToken, device, thirdPartyAccountId: 'user-99', sandbox: false };
    await expect(h.entry.getOrder({ ...asBuyer, appId: 'app-1' })).rejects.toMatchObject({
      kind: 'not_found',
    });
    expect((await h.entry.getOrder({ ...asBuyer, appId: 'app-2' })).tickets).toHaveLength(1);
    const [bought2] = await h.storage.tickets.listByOrder(resale.orderId);
    const render = (appId: string) =>
      h.entry.secureRender({
        appId,
        userId: 'user-99',
        device,
        sandbox: false,
        tickets: [asked(bought2!)],
      });
    expect((await render('app-1'))[0]!.refusal).toEqual({ code: 404, error: 'ticket.not.found' });
    expect((await render('app-2'))[0]!.refusal).toBeUndefined();
  });
});

describe('a seat admits once across its owners', () => {
  it("refuses the buyer's re-issued ticket of a seat the seller was admitted with", async () => {
    const h = harness();
    const { message, orderToken } = await bought(h);
    const sellerToken = decodeToken((await read(h, orderToken)).tickets[0]!.token);
    const gate = await gateFor(h);
    const admitted = await h.entry.validateScan(
      gate,
      payloadAt(sellerToken, h.clock.now.getTime()),
    );
    expect(admitted.result).toBe('ADMITTED');
    const [sold] = await h.storage.tickets.listByOrder(message.orderId);
    // The resale order names the seat by the partner ticket id it had under the seller.
    const resale = confirmedOrder({
      seats: ['7'],
      thirdPartyAccountId: 'user-99',
      resoldTicketIds: [sold!.partnerTicketId],
      resoldFromOrderId: message.orderId,
    });
    resale.message.tickets[0]!.ticketId = sold!.partnerTicketId;
    await h.entry.confirm(toConfirmedOrder(resale.message, DEVELOPMENT_CONTACT_KEYS));
    const buyerView = await h.entry.getOrder({
      orderToken: resale.orderToken,
      appId: 'app-1',
      device: { ...device, id: 'device-new' },
      thirdPartyAccountId: 'user-99',
      sandbox: false,
    });
    const buyerToken = decodeToken(buyerView.tickets[0]!.token);
    expect(buyerView.tickets[0]!.ticket.partnerTicketId).toBe(sold!.partnerTicketId);
    h.clock.advance(STEP_MS);
    const again = await h.entry.validateScan(gate, payloadAt(buyerToken, h.clock.now.getTime()));
    expect(again.result).toBe('ALREADY_ADMITTED');
    expect(again.admittedBy).toBe(admitted.gate.id);
  });

  it('tells which seats of an event were admitted, and bounds the question', async () => {
    const h = harness();
    const { message, orderToken } = await bought(h);
    const token = decodeToken((await read(h, orderToken)).tickets[1]!.token);
    const gate = await gateFor(h);
    await h.entry.validateScan(gate, payloadAt(token, h.clock.now.getTime()));
    const seats = message.tickets.map((t) => t.ticketId);
    const admitted = await h.entry.admittedSeats(EVENT_ID, [...seats, 'PT-unknown']);
    expect(admitted.map((a) => [a.partnerTicketId, a.ticketId])).toEqual([
      [seats[1], `${message.orderId}-t2`],
    ]);
    expect(await h.entry.admittedSeats(OTHER_EVENT_ID, seats)).toEqual([]);
    await expect(h.entry.admittedSeats('', seats)).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    // An admission recorded by ticket id (before admissions were keyed by seat) counts too.
    const [earlier] = await h.storage.tickets.listByOrder(message.orderId);
    await h.storage.admissions.admit(
      {
        id: earlier!.id,
        ticketId: earlier!.id,
        orderId: message.orderId,
        eventId: EVENT_ID,
        gateId: 'g-old',
        timeStep: 1,
        payloadHash: 'old',
        admittedAt: h.clock.now,
      },
      {
        ticketId: earlier!.id,
        partnerTicketId: '',
        orderId: message.orderId,
        eventId: EVENT_ID,
        gateId: 'g-old',
        result: 'ADMITTED',
        timeStep: 1,
        scannedAt: h.clock.now,
      },
    );
    const both = await h.entry.admittedSeats(EVENT_ID, seats);
    expect(both.map((a) => a.partnerTicketId).sort()).toEqual([...seats].sort());
    const many = Array.from({ length: 101 }, (_, i) => `PT-${i}`);
    await expect(h.entry.admittedSeats(EVENT_ID, many)).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });
});
