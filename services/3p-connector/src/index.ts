import { randomBytes } from 'node:crypto';
import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadThreePConnectorConfig, type ThreePConnectorConfig } from './config.js';
import { composeThreePConnector } from './service.js';

export { configSchema, loadThreePConnectorConfig, type ThreePConnectorConfig } from './config.js';

/** 3p-connector as the process runner and the embedded default see it. */
export const threePConnectorService: ServiceDefinition<ThreePConnectorConfig> = {
  name: '3p-connector',
  loadConfig: loadThreePConnectorConfig,
  compose: composeThreePConnector,
  // The partners' side of carts and orders is cart's; the reconciler lists the partners' orders and
  // releases or cancels what a partner kept by mistake. GetOrder, the partner's view of one order,
  // is for the two services that hold orders (neither reads it today). Partner administration is
  // the operators' (admin API through the edge).
  callers: {
    'marquee.partner.v1.ConnectorService': {
      CreateBooking: ['cart'],
      ReleaseBooking: ['cart', 'reconciler'],
      CreateOrder: ['cart'],
      GetAvailability: ['cart'],
      OrderAction: ['cart', 'reconciler'],
      GetOrder: ['cart', 'reconciler'],
      ListOrders: ['reconciler'],
      VerifyAccessCode: ['cart'],
    },
    'marquee.partner.v1.PartnerAdminService': {
      RegisterPartner: ['edge-gateway'],
      ListPartners: ['edge-gateway'],
      GetPartner: ['edge-gateway'],
      StartImport: ['edge-gateway'],
      ListQueuedCalls: ['edge-gateway'],
    },
  },
  // One key for the run's partner secrets, without the warning a generated one prints; the run's
  // partner (partner-reference) listens on loopback, which partner calls refuse unless listed.
  development: {
    env: () => ({
      PARTNER_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      PARTNER_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
    }),
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
