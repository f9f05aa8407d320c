import type { Deal as DealMessage } from '@marquee/proto/deals/v1';
import { DealState, Exclusivity as ExclusivityMessage } from '@marquee/proto/deals/v1';
import type { Deal, Exclusivity } from '../domain/deal.js';

/** Domain deal → `marquee.deals.v1.Deal` (the `deal-changed` payload and the gRPC answers). */
export function toDealMessage(deal: Deal): DealMessage {
  return {
    id: deal.id,
    eventId: deal.eventId,
    name: deal.name,
    description: deal.description,
    offerCode: deal.offerCode ?? '',
    exclusivity: toExclusivityMessage(deal.exclusivity),
    state: deal.state === 'active' ? DealState.DEAL_STATE_ACTIVE : DealState.DEAL_STATE_ENDED,
    version: deal.version,
    createdAt: deal.createdAt,
    updatedAt: deal.updatedAt,
  };
}

export function toExclusivityMessage(exclusivity: Exclusivity): ExclusivityMessage {
  return exclusivity === 'EXCLUSIVE'
    ? ExclusivityMessage.EXCLUSIVITY_EXCLUSIVE
    : ExclusivityMessage.EXCLUSIVITY_NONEXCLUSIVE;
}

/** Wire exclusivity → the API's words; UNSPECIFIED (or unknown) → `''`, which validation rejects. */
export function fromExclusivityMessage(exclusivity: ExclusivityMessage): string {
  switch (exclusivity) {
    case ExclusivityMessage.EXCLUSIVITY_EXCLUSIVE:
      return 'EXCLUSIVE';
    case ExclusivityMessage.EXCLUSIVITY_NONEXCLUSIVE:
      return 'NONEXCLUSIVE';
    default:
      return '';
  }
}

/**
 * `marquee.deals.v1.Deal` (a `deal-changed` payload) → domain deal; `undefined` when it is not a
 * deal this service could have written (no id or event, unknown exclusivity or state).
 */
export function fromDealMessage(message: DealMessage): Deal | undefined {
  const exclusivity = fromExclusivityMessage(message.exclusivity);
  const state =
    message.state === DealState.DEAL_STATE_ACTIVE
      ? 'active'
      : message.state === DealState.DEAL_STATE_ENDED
        ? 'ended'
        : undefined;
  if (!message.id || !message.eventId || !exclusivity || !state || message.version < 1)
    return undefined;
  return {
    id: message.id,
    eventId: message.eventId,
    name: message.name,
    description: message.description,
    ...(message.offerCode ? { offerCode: message.offerCode } : {}),
    exclusivity: exclusivity as Exclusivity,
    state,
    version: Number(message.version),
    createdAt: message.createdAt ?? new Date(0),
    updatedAt: message.updatedAt ?? new Date(0),
  };
}
