import type { TSchema, Static } from '@sinclair/typebox';
import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  handleWhen,
  retry,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { Dispatcher } from 'undici';
import {
  AvailabilityAnswer,
  BookingAnswer,
  ErrorBody,
  EventAnswer,
  EventsPage,
  HealthcheckResult,
  LogoAnswer,
  ManifestAnswer,
  OrderActionAnswer,
  OrderAnswer,
  OrdersPage,
  TaxPlanAnswer,
  TokenResponse,
  checkAnswer,
} from '@marquee/partner-api';
import { currentCorrelationId, newCorrelationId, type Logger } from '@marquee/platform/logger';
import { metrics } from '@marquee/platform/metrics';
import type { CallOptions, PartnerApi, PartnerApiFactory, SecretBox } from '../app/ports.js';
import type { Partner } from '../domain/partner.js';
import type { EgressPolicy } from '../domain/egress.js';
import { kindOfPartnerError } from '../domain/partner-errors.js';
import { egressAgent, type Resolver } from './egress-agent.js';
import { PartnerCallError } from './partner-call-error.js';
import { PartnerTransport } from './partner-transport.js';
import { TokenCache } from './token-cache.js';

export { PartnerCallError };

export interface PartnerHttpOptions {
  /** Upper bound of one call, retries included (PARTNER_CALL_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * Upper bound of one page of `GET /events` (PARTNER_LISTING_TIMEOUT_MS, default `timeoutMs`).
   * A page of a large venue costs the partner more than a runtime call, and only the background
   * import waits for it, so it gets its own, longer budget.
   */
  listingTimeoutMs?: number;
  logger: Logger;
  /**
   * Which partner addresses may be called (PARTNER_ALLOWED_HOSTS, https in production): checked
   * on the URL before every call and on the resolved address of every new connection.
   */
  egress: EgressPolicy;
  /** How host names are resolved (tests give names their own addresses); `dns.lookup` by default. */
  resolver?: Resolver;
  /** Largest partner answer read, in bytes (PARTNER_MAX_RESPONSE_BYTES, default 8 MiB). */
  maxResponseBytes?: number;
  /**
   * Where requests go out: by default an undici keep-alive agent whose connections go through the
   * egress check (`egressAgent`). undici's own `request` rather than the global `fetch` (the same
   * library under a WHATWG layer): measured at about a third of fetch's CPU per call, and the
   * connector makes two partner calls per reserve.
   */
  dispatcher?: Dispatcher;
  /** Consecutive partner faults that open the circuit (default 5). */
  breakerThreshold?: number;
  /** How long an open circuit refuses calls before letting one through (default 10 s). */
  halfOpenAfterMs?: number;
  /** Attempts of idempotent calls (default 3). */
  maxAttempts?: number;
  /** First retry delay (default 100 ms, doubling with jitter, at most 1 s). */
  retryDelayMs?: number;
}

interface Operation<S extends TSchema | undefined> {
  /** For logs and error details, e.g. `POST /bookings`. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  schema: S;
  /** Safe to send again (GETs, DELETE booking, cancel): retried with backoff. */
  idempotent: boolean;
  /** A catalogue listing page: bounded by `listingTimeoutMs` instead of `timeoutMs`. */
  listing?: boolean;
}

type Answer<S> = S extends TSchema ? Static<S> : void;

/**
 * Partner calls by partner, operation (`POST /bookings`) and outcome (`ok`, an error kind such as
 * `unavailable` or `deadline_exceeded`, `circuit_open`), retries included in one call.
 */
const partnerCalls = metrics.counter('marquee_partner_calls', {
  description: 'Calls to partner 3P APIs, by partner, operation and outcome',
});
const partnerCallDuration = metrics.histogram('marquee_partner_call_duration_seconds', {
  description: 'Duration of calls to partner 3P APIs, retries included',
  unit: 's',
});

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** A partner's own error text kept for the log: bounded, one line. */
const forLog = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 300);

const enc = encodeURIComponent;

/**
 * The 3P API of one partner over HTTP: a cached client-credentials token, `Authorization`,
 * `X-Correlation-Id` and `Accept` on every call, one deadline per call (the caller's remaining
 * deadline bounded by `timeoutMs`), retries with backoff only for idempotent operations, and a
 * circuit breaker counting partner faults (5xx, network, timeout, answers outside the contract).
 */
export class PartnerHttpClient implements PartnerApi {
  readonly breaker: CircuitBreakerPolicy;
  private readonly tokens: TokenCache;
  private readonly transport: PartnerTransport;
  private readonly log: Logger;

  constructor(
    private readonly partner: Pick<Partner, 'id' | 'baseUrl' | 'authUrl' | 'clientId'> & {
      clientSecret: () => string;
    },
    private readonly options: PartnerHttpOptions,
  ) {
    this.log = options.logger.child({ partner_id: partner.id });
    this.transport = new PartnerTransport({
      partnerId: partner.id,
      egress: options.egress,
      dispatcher: options.dispatcher ?? egressAgent(options.egress, options.resolver),
      log: this.log,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    });
    this.breaker = circuitBreaker(
      handleWhen((e) => e instanceof PartnerCallError && e.transient),
      {
        halfOpenAfter: options.halfOpenAfterMs ?? 10_000,
        breaker: new ConsecutiveBreaker(options.breakerThreshold ?? 5),
      },
    );
    this.breaker.onBreak(() => this.log.warn({}, 'partner circuit opened'));
    this.breaker.onReset(() => this.log.info({}, 'partner circuit closed'));
    this.tokens = new TokenCache(() => this.issueToken());
  }

  healthcheck(options?: CallOptions) {
    return this.call(
      {
        name: 'GET /healthcheck',
        method: 'GET',
        path: '/healthcheck',
        schema: HealthcheckResult,
        idempotent: true,
      },
      options,
    );
  }

  listEvents(
    query: { venue: string; lastModification: string; page: number; size: number },
    options?: CallOptions,
  ) {
    return this.call(
      {
        name: 'GET /events',
        method: 'GET',
        path: '/events',
        query: {
          venue: query.venue,
          last_modification: query.lastModification,
          size: String(query.size),
          page: String(query.page),
        },
        schema: EventsPage,
        idempotent: true,
        listing: true,
      },
      options,
    );
  }

  getEvent(id: string, lastModification: string | undefined, options?: CallOptions) {
    return this.call(
      {
        name: 'GET /events/{id}',
        method: 'GET',
        path: `/events/${enc(id)}`,
        query: { last_modification: lastModification },
        schema: EventAnswer,
        idempotent: true,
      },
      options,
    );
  }

  getManifest(id: string, options?: CallOptions) {
    return this.call(
      {
        name: 'GET /manifests/{id}',
        method: 'GET',
        path: `/manifests/${enc(id)}`,
        schema: ManifestAnswer,
        idempotent: true,
      },
      options,
    );
  }

  getLogo(id: string, options?: CallOptions) {
    return this.call(
      {
        name: 'GET /logos/{id}',
        method: 'GET',
        path: `/logos/${enc(id)}`,
        schema: LogoAnswer,
        idempotent: true,
      },
      options,
    );
  }

  getTaxPlan(id: string, options?: CallOptions) {
    return this.call(
      {
        name: 'GET /tax-plans/{id}',
        method: 'GET',
        path: `/tax-plans/${enc(id)}`,
        schema: TaxPlanAnswer,
        idempotent: true,
      },
      options,
    );
  }

  getAvailability(
    eventId: string,
    query: { levelId?: string; sectionId?: string; detail: 'overview' | 'seats' },
    options?: CallOptions,
  ) {
    return this.call(
      {
        name: 'GET /events/{id}/availability',
        method: 'GET',
        path: `/events/${enc(eventId)}/availability`,
        query: { level_id: query.levelId, section_id: query.sectionId, detail: query.detail },
        schema: AvailabilityAnswer,
        idempotent: true,
      },
      options,
    );
  }

  createBooking(body: unknown, options?: CallOptions) {
    return this.call(
      {
        name: 'POST /bookings',
        method: 'POST',
        path: '/bookings',
        body,
        schema: BookingAnswer,
        idempotent: false,
      },
      options,
    );
  }

  async releaseBooking(inventoryToken: string, options?: CallOptions) {
    await this.call(
      {
        name: 'DELETE /bookings/{token}',
        method: 'DELETE',
        path: `/bookings/${enc(inventoryToken)}`,
        schema: undefined,
        idempotent: true,
      },
      options,
    );
  }

  createOrder(body: unknown, options?: CallOptions) {
    return this.call(
      {
        name: 'POST /orders',
        method: 'POST',
        path: '/orders',
        body,
        schema: OrderAnswer,
        idempotent: false,
      },
      options,
    );
  }

  orderAction(
    inventoryOrderId: string,
    body: { request: { action: string } },
    options?: CallOptions,
  ) {
    return this.call(
      {
        name: `POST /orders/{id} ${body.request.action}`,
        method: 'POST',
        path: `/orders/${enc(inventoryOrderId)}`,
        body,
        schema: OrderActionAnswer,
        // A cancel of a cancelled order is refused with 315, which the caller counts as done.
        idempotent: body.request.action === 'CANCEL',
      },
      options,
    );
  }

  getOrder(inventoryOrderId: string, options?: CallOptions) {
    return this.call(
      {
        name: 'GET /orders/{id}',
        method: 'GET',
        path: `/orders/${enc(inventoryOrderId)}`,
        schema: OrderAnswer,
        idempotent: true,
      },
      options,
    );
  }

  listOrders(
    query: {
      inventoryToken?: string;
      eventId?: string;
      start?: string;
      end?: string;
      page?: number;
      size?: number;
    },
    options?: CallOptions,
  ) {
    return this.call(
      {
        name: 'GET /orders',
        method: 'GET',
        path: '/orders',
        query: {
          inventory_token: query.inventoryToken,
          event_id: query.eventId,
          start: query.start,
          end: query.end,
          page: query.page === undefined ? undefined : String(query.page),
          size: query.size === undefined ? undefined : String(query.size),
        },
        schema: OrdersPage,
        idempotent: true,
      },
      options,
    );
  }

  // -------------------------------------------------------------------------------------------

  /** One partner call as the use cases see it, counted by partner, operation and outcome. */
  private async call<S extends TSchema | undefined>(
    op: Operation<S>,
    options: CallOptions = {},
  ): Promise<Answer<S>> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await this.callWithPolicies(op, options);
    } catch (error) {
      outcome =
        error instanceof PartnerCallError
          ? error.details?.['circuitOpen'] === true
            ? 'circuit_open'
            : error.kind
          : 'error';
      throw error;
    } finally {
      const attributes = { partner: this.partner.id, operation: op.name, outcome };
      partnerCalls.add(1, attributes);
      partnerCallDuration.record((performance.now() - started) / 1000, attributes);
    }
  }

  private async callWithPolicies<S extends TSchema | undefined>(
    op: Operation<S>,
    options: CallOptions = {},
  ): Promise<Answer<S>> {
    const correlationId = currentCorrelationId() ?? newCorrelationId();
    const bound = op.listing
      ? (this.options.listingTimeoutMs ?? this.options.timeoutMs)
      : this.options.timeoutMs;
    const budget = Math.min(bound, options.deadlineMs ?? Infinity);
    const deadlineAt = Date.now() + budget;
    const once = () => this.breaker.execute(() => this.send(op, correlationId, deadlineAt));
    try {
      if (!op.idempotent) return await once();
      const policy = retry(
        handleWhen(
          // Refused credentials were already retried with a fresh token: another try cannot help.
          (e) =>
            e instanceof PartnerCallError &&
            e.transient &&
            e.httpStatus !== 401 &&
            e.httpStatus !== 403 &&
            e.httpStatus !== 400 &&
            deadlineAt - Date.now() > 50,
        ),
        {
          maxAttempts: (this.options.maxAttempts ?? 3) - 1,
          backoff: new ExponentialBackoff({
            initialDelay: this.options.retryDelayMs ?? 100,
            maxDelay: 1_000,
          }),
        },
      );
      return await policy.execute(once);
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw this.transport.failure(
          'unavailable',
          `partner circuit open: ${op.name} not sent`,
          op,
          {
            transient: true,
            correlationId,
            circuitOpen: true,
          },
        );
      }
      throw error;
    }
  }

  private async send<S extends TSchema | undefined>(
    op: Operation<S>,
    correlationId: string,
    deadlineAt: number,
  ): Promise<Answer<S>> {
    let token = await this.tokens.get();
    let response = await this.exchange(op, token, correlationId, deadlineAt);
    if (response.status === 401 || response.status === 403) {
      this.tokens.invalidate(token);
      token = await this.tokens.get();
      response = await this.exchange(op, token, correlationId, deadlineAt);
      if (response.status === 401 || response.status === 403) {
        this.log.warn(
          { operation: op.name, http_status: response.status, correlation_id: correlationId },
          'partner rejected the connector credentials',
        );
        throw this.transport.failure(
          'unavailable',
          `partner rejected the credentials (${response.status})`,
          op,
          {
            httpStatus: response.status,
            transient: true,
            correlationId,
          },
        );
      }
    }
    return this.answer(op, response, correlationId);
  }

  private async exchange(
    op: Operation<TSchema | undefined>,
    token: string,
    correlationId: string,
    deadlineAt: number,
  ): Promise<{ status: number; text: string }> {
    const url = new URL(this.partner.baseUrl + op.path);
    for (const [key, value] of Object.entries(op.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(key, value);
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'x-correlation-id': correlationId,
      accept: 'application/json',
    };
    if (op.body !== undefined) headers['content-type'] = 'application/json';
    return this.transport.fetchText(
      'base_url',
      url.toString(),
      {
        method: op.method,
        headers,
        ...(op.body !== undefined ? { body: JSON.stringify(op.body) } : {}),
      },
      op,
      correlationId,
      deadlineAt,
    );
  }

  private answer<S extends TSchema | undefined>(
    op: Operation<S>,
    response: { status: number; text: string },
    correlationId: string,
  ): Answer<S> {
    const { status, text } = response;
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (status >= 200 && status < 300) {
      if (op.schema === undefined) return undefined as Answer<S>;
      const checked = checkAnswer(op.schema, json);
      if (checked.ok) return checked.value as Answer<S>;
      this.log.warn(
        { operation: op.name, errors: checked.errors, correlation_id: correlationId },
        'partner answer outside the contract',
      );
      // The partner did answer success: for a state-changing call it may have executed it.
      throw this.transport.failure(
        'unavailable',
        `partner answer to ${op.name} does not match the contract`,
        op,
        {
          httpStatus: status,
          transient: true,
          outcomeUnknown: op.method !== 'GET' && !op.idempotent,
          correlationId,
        },
      );
    }
    const body = checkAnswer(ErrorBody, json);
    const partnerErrorId = body.ok ? body.value.id : undefined;
    const kind = kindOfPartnerError(status, partnerErrorId);
    // The partner's own text stays in the log: what it says is not ours to pass on (it may be
    // anything a misdirected URL answers), the error id and status carry the meaning.
    this.log.info(
      {
        operation: op.name,
        http_status: status,
        partner_error_id: partnerErrorId,
        partner_message: forLog(body.ok ? body.value.message : text),
        correlation_id: correlationId,
      },
      'partner refused a call',
    );
    const what =
      partnerErrorId === undefined
        ? `HTTP ${status}`
        : `error id ${partnerErrorId}, HTTP ${status}`;
    throw this.transport.failure(kind, `partner refused ${op.name} (${what})`, op, {
      httpStatus: status,
      partnerErrorId,
      transient: status >= 500 || kind === 'unavailable',
      correlationId,
    });
  }

  private async issueToken(): Promise<{ accessToken: string; expiresInMs: number }> {
    const correlationId = currentCorrelationId() ?? newCorrelationId();
    const op = { name: 'POST token', method: 'POST' as const, idempotent: true };
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.partner.clientId,
      client_secret: this.partner.clientSecret(),
    });
    const response = await this.transport.fetchText(
      'auth_url',
      this.partner.authUrl,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'x-correlation-id': correlationId,
        },
        body: form.toString(),
      },
      op,
      correlationId,
      Date.now() + this.options.timeoutMs,
    );
    if (response.status !== 200) {
      const unauthorized =
        response.status === 400 || response.status === 401 || response.status === 403;
      if (unauthorized)
        this.log.warn(
          { http_status: response.status, correlation_id: correlationId },
          'partner refused the connector credentials',
        );
      throw this.transport.failure(
        'unavailable',
        unauthorized
          ? `partner refused the credentials (${response.status})`
          : `token endpoint answered ${response.status}`,
        op,
        { httpStatus: response.status, transient: true, correlationId },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(response.text);
    } catch {
      json = undefined;
    }
    const checked = checkAnswer(TokenResponse, json);
    if (!checked.ok) {
      throw this.transport.failure('unavailable', 'token answer does not match the contract', op, {
        httpStatus: 200,
        transient: true,
        correlationId,
      });
    }
    return {
      accessToken: checked.value.access_token,
      expiresInMs: Number(checked.value.expires_in) * 1_000,
    };
  }
}

/** One client per partner (its token and circuit live as long as the process). */
export function createPartnerApiFactory(
  secrets: SecretBox,
  options: PartnerHttpOptions,
): PartnerApiFactory & { clientOf(partnerId: string): PartnerHttpClient | undefined } {
  const clients = new Map<string, { key: string; client: PartnerHttpClient }>();
  // One connection pool for every partner, each new connection through the egress check.
  const shared = {
    ...options,
    dispatcher: options.dispatcher ?? egressAgent(options.egress, options.resolver),
  };
  return {
    forPartner(partner) {
      const key = `${partner.baseUrl} ${partner.authUrl} ${partner.clientId} ${partner.clientSecret.data}`;
      const known = clients.get(partner.id);
      if (known && known.key === key) return known.client;
      const client = new PartnerHttpClient(
        {
          id: partner.id,
          baseUrl: partner.baseUrl,
          authUrl: partner.authUrl,
          clientId: partner.clientId,
          clientSecret: () => secrets.decrypt(partner.clientSecret),
        },
        shared,
      );
      clients.set(partner.id, { key, client });
      return client;
    },
    clientOf: (partnerId) => clients.get(partnerId)?.client,
  };
}
