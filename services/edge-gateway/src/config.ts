import { DEFAULT_FEES } from '@marquee/platform/money';
import { z } from 'zod';
import { loadConfig, randomSecret } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';
import { trustedProxiesSetting } from '@marquee/platform/http';

const HOST_PORT = String.raw`(?:[\w.-]+:\d{1,5}|\[[0-9a-f:]+\]:\d{1,5})`;
/** `dns:///name:port` (or with a DNS server as authority): a headless Service's name. */
const DNS_TARGET = String.raw`dns:\/\/[^/\s]*\/[\w.-]+:\d{1,5}`;
const LIST = String.raw`${HOST_PORT}(?:\s*,\s*${HOST_PORT})*`;

/**
 * A gRPC address: `host:port`, `dns:///name:port` (every address the name resolves to gets calls,
 * round-robin), or several `ip:port` separated by commas (replicas by address); grpc/client.ts
 * (`grpcTarget`) says how each is dialled.
 */
const grpcAddress = (fallback: string) =>
  z
    .string()
    .regex(
      new RegExp(String.raw`^\s*(?:${DNS_TARGET}|${LIST})\s*$`, 'i'),
      'must be host:port, dns:///name:port, or several ip:port separated by commas',
    )
    .default(fallback);

/**
 * The replicas of a read service (adapters/replicas.ts): one or more `host:port`, comma separated,
 * each its own client; or one `dns:///name:port` whose addresses one client balances over.
 */
const grpcAddressList = grpcAddress;
const fee = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** The only module of edge-gateway that reads the environment; see README. */
export const configSchema = serviceConfigSchema({
  name: 'edge-gateway',
  httpPort: 8080,
  grpcPort: 50050,
}).extend({
  // Required in production (checked in service.ts, which knows NODE_ENV); generated otherwise.
  // A bearer secret for the whole admin API: a random value in hex, base64 or base64url holding
  // at least 128 bits (32 hex or 22 base64 characters; `randomSecret`, platform config), so a
  // word, a sentence, a repeated pattern or a short dummy is refused.
  ADMIN_TOKEN: randomSecret().optional(),
  // The token ADMIN_TOKEN replaces, still accepted until it is removed: a rotation without 401s
  // (docs/operations.md, "Rotating each secret"). Held to the same strength.
  ADMIN_TOKEN_PREVIOUS: randomSecret().optional(),
  GRPC_ADDR_AUTH_GATEWAY: grpcAddress('127.0.0.1:50051'),
  GRPC_ADDR_PUBLISHER: grpcAddress('127.0.0.1:50052'),
  GRPC_ADDR_CATALOG_INDEXER: grpcAddressList('127.0.0.1:50053'),
  GRPC_ADDR_DEALS: grpcAddressList('127.0.0.1:50054'),
  GRPC_ADDR_CART: grpcAddress('127.0.0.1:50055'),
  GRPC_ADDR_SECURE_ENTRY: grpcAddress('127.0.0.1:50056'),
  GRPC_ADDR_3P_CONNECTOR: grpcAddress('127.0.0.1:50057'),
  GRPC_ADDR_RECONCILER: grpcAddress('127.0.0.1:50058'),
  /** auth-gateway's HTTP base URL: the edge proxies `{base_url}/oauth/*` there. */
  HTTP_URL_AUTH_GATEWAY: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8081'),
  /**
   * The proxies in front of the edge (ingress controller, load balancer) whose `X-Forwarded-For`
   * entries are believed, as addresses or CIDR blocks, comma separated; `none` (the default) when
   * clients connect directly. The client address the edge forwards to auth-gateway is the first,
   * from the right, that is none of them.
   */
  TRUSTED_PROXIES: trustedProxiesSetting('none'),
  /**
   * The signing secret (`whsec_...`) of the Stripe webhook endpoint `POST /webhooks/stripe`; the
   * endpoint answers 503 without it. A secret: give it as a file (`STRIPE_WEBHOOK_SECRET_FILE`).
   */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Deadline of each call to a backend service. */
  BACKEND_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * Calls in flight to one backend connection at most; beyond, the request is answered 503 with
   * Retry-After at once instead of queueing behind calls that will outlive their deadline.
   */
  BACKEND_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(256),
  /**
   * Calls in flight to cart from the partner cart family at most (its own bound, instead of
   * BACKEND_MAX_IN_FLIGHT): reserves wait in cart's line for a reserve place (cart's
   * CART_RESERVE_QUEUE_MAX), which sheds them itself, so the edge holds as many as cart may line up.
   */
  PARTNER_CART_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(2_048),
  /**
   * The cart's fee schedule (same variables and defaults as the cart: set them for both). The
   * edge shows totals with the fees a cart charges where the cart is not asked for them
   * (international discovery's `including_ticket_fees`).
   */
  CART_SERVICE_FEE_BPS: fee(DEFAULT_FEES.serviceFeeBps),
  CART_SERVICE_FEE_MIN_MINOR: fee(DEFAULT_FEES.serviceFeeMinMinor),
  CART_PROCESSING_FEE_MINOR: fee(DEFAULT_FEES.processingFeeMinor),
  CART_FEE_TAX_BPS: fee(DEFAULT_FEES.feeTaxBps),
});

export type EdgeGatewayConfig = z.output<typeof configSchema>;

export const loadEdgeGatewayConfig = (env: NodeJS.ProcessEnv = process.env): EdgeGatewayConfig =>
  loadConfig(configSchema, env);
