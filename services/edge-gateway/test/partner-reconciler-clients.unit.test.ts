import { PartnerHealth, PartnerOperation } from '@marquee/proto/partner/v1';
import { CaseTrigger, Outcome } from '@marquee/proto/reconciliation/v1';
import { describe, expect, it } from 'vitest';
import { toPartnerRecord, toQueuedCall } from '../src/adapters/partner-admin-client.js';
import { toCaseRecord, toReportRecord } from '../src/adapters/reconciler-client.js';

const at = new Date('2030-01-01T00:00:00Z');

describe('partner admin client mapping', () => {
  it('maps a partner to the admin shape (health names, ISO dates, no empty errors)', () => {
    const sut = toPartnerRecord({
      id: 'p-1',
      name: 'Box office',
      baseUrl: 'https://p.example/v1',
      authUrl: 'https://p.example/token',
      clientId: 'marquee',
      venues: [
        { venueId: 'V1', watermark: at, lastImportAt: at, lastImportEvents: 2, lastError: '' },
      ],
      health: PartnerHealth.PARTNER_HEALTH_SYNC_REQUIRED,
      createdAt: at,
    });
    expect(sut).toEqual({
      id: 'p-1',
      name: 'Box office',
      baseUrl: 'https://p.example/v1',
      authUrl: 'https://p.example/token',
      clientId: 'marquee',
      venues: [
        {
          venueId: 'V1',
          watermark: at.toISOString(),
          lastImportAt: at.toISOString(),
          lastImportEvents: 2,
        },
      ],
      health: 'SYNC_REQUIRED',
      createdAt: at.toISOString(),
    });
  });

  it('names the queued operation without its enum prefix', () => {
    const sut = toQueuedCall({
      id: 'q',
      partnerId: 'p',
      operation: PartnerOperation.PARTNER_OPERATION_CANCEL_ORDER,
      inventoryOrderId: 'io',
      orderId: 'o',
      attempts: 1,
      nextAttemptAt: at,
      lastError: '',
      queuedAt: at,
    });
    expect(sut).toMatchObject({ operation: 'CANCEL_ORDER', attempts: 1 });
    expect(sut).not.toHaveProperty('lastError');
  });
});

describe('reconciler client mapping', () => {
  it('maps an open case: OPEN outcome, no resolvedAt, empty references left out', () => {
    const sut = toCaseRecord({
      id: 'rc-1',
      partnerId: 'p',
      eventId: 'e',
      cartId: 'c',
      orderId: '',
      inventoryToken: '',
      inventoryOrderId: '',
      trigger: CaseTrigger.CASE_TRIGGER_STALE_BOOKING,
      outcome: Outcome.OUTCOME_UNSPECIFIED,
      detail: 'd',
      openedAt: at,
      resolvedAt: undefined,
      operatorAction: '',
      paymentId: '',
    });
    expect(sut).toEqual({
      id: 'rc-1',
      partnerId: 'p',
      eventId: 'e',
      cartId: 'c',
      trigger: 'STALE_BOOKING',
      outcome: 'OPEN',
      detail: 'd',
      openedAt: at.toISOString(),
    });
  });

  it('maps a money case: its trigger, operator action and payment id', () => {
    const sut = toCaseRecord({
      id: 'rc-pay-c',
      partnerId: 'p',
      eventId: 'e',
      cartId: 'c',
      orderId: '',
      inventoryToken: '',
      inventoryOrderId: '',
      trigger: CaseTrigger.CASE_TRIGGER_CAPTURE_WITHOUT_ORDER,
      outcome: Outcome.OUTCOME_MANUAL,
      detail: 'd',
      openedAt: at,
      resolvedAt: at,
      operatorAction: 'refund payment pi_1',
      paymentId: 'pi_1',
    });
    expect(sut).toMatchObject({
      trigger: 'CAPTURE_WITHOUT_ORDER',
      outcome: 'MANUAL',
      operatorAction: 'refund payment pi_1',
      paymentId: 'pi_1',
    });
  });

  it('maps a report', () => {
    const sut = toReportRecord({
      eventId: 'e',
      partnerId: 'p',
      generatedAt: at,
      periodStart: at,
      periodEnd: at,
      partnerTransactions: 1,
      platformTransactions: 2,
      matched: 1,
      orphansCancelled: 0,
      missingAtPartner: 1,
      caseIds: ['rc-1'],
    });
    expect(sut).toMatchObject({
      generatedAt: at.toISOString(),
      missingAtPartner: 1,
      caseIds: ['rc-1'],
    });
  });
});
