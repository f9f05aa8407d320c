/**
 * The commerce API (`/commerce/v2`) inside cart: offers built from the event projection and
 * shopping carts on cart's application (see the README, "Commerce"). `composeCommerce` is what
 * cart's composition root calls.
 */
import type { Idempotency } from '@marquee/platform/idempotency';
import type { Logger } from '@marquee/platform/logger';
import type { GrpcRegistration } from '@marquee/platform/service';
import type { CartApp } from '../app/index.js';
import type { Clock, SecretBox } from '../app/ports.js';
import type { FeeSchedule } from '../domain/pricing.js';
import type { EventReader } from '../domain/sellable-event.js';
import { createAccessCodesClient } from './adapters/access-codes.js';
import { CommerceApp, type AccessCodes } from './app/commerce-app.js';
import { commerceGrpc } from './ports/grpc/commerce-grpc.js';
import {
  PasswordThrottle,
  type PasswordFailureDoc,
  type PasswordThrottleSettings,
} from './adapters/password-throttle.js';
import type { VersionedStore } from '@marquee/platform/store';

export { CommerceApp, type AccessCodes } from './app/commerce-app.js';
export { createCommerceStorage, type CommerceStorage } from './adapters/stores.js';
export { buildOffers, DEFAULT_MAX_TICKETS, type EventOffers } from './domain/offers.js';
export { offerId, parseOfferId, passwordId } from '../domain/offer-ids.js';
export { commerceDeliveries } from './domain/deliveries.js';
export { PASSWORD_ATTEMPTS_EXCEEDED } from './adapters/password-throttle.js';

export function composeCommerce(input: {
  carts: CartApp;
  events: EventReader;
  secrets: SecretBox;
  fees: FeeSchedule;
  clock: Clock;
  idempotency: Idempotency;
  logger: Logger;
  /** 3p-connector's address, for VerifyAccessCode (unless `accessCodes` is given). */
  connectorAddress: string;
  deadlineMs: number;
  /** Tests give their own. */
  accessCodes?: AccessCodes;
  /** Counters of wrong presale passwords, and their limits. */
  passwordFailures: VersionedStore<PasswordFailureDoc>;
  passwordThrottle: PasswordThrottleSettings;
}): { grpc: GrpcRegistration; close(): void; purgeExpired(): Promise<number> } {
  const client = input.accessCodes
    ? undefined
    : createAccessCodesClient(input.connectorAddress, {
        deadlineMs: input.deadlineMs,
        logger: input.logger,
      });
  const throttle = new PasswordThrottle(input.passwordFailures, input.passwordThrottle, () =>
    input.clock.now(),
  );
  const commerce = new CommerceApp({
    carts: input.carts,
    events: input.events,
    accessCodes: input.accessCodes ?? client!,
    secrets: input.secrets,
    fees: input.fees,
    clock: input.clock,
    throttle,
  });
  return {
    grpc: commerceGrpc(commerce, input.carts, input.idempotency),
    close: () => client?.close(),
    purgeExpired: () => throttle.purgeExpired(),
  };
}
