import { request, type Dispatcher } from 'undici';
import type { Logger } from '@marquee/platform/logger';
import { checkPartnerUrl, type EgressPolicy } from '../domain/egress.js';
import type { ErrorKind } from '@marquee/platform/kernel';
import { ConnectorError } from '../domain/errors.js';
import { PartnerCallError, type PartnerCallFacts } from './partner-call-error.js';

/** What a partner exchange needs to know of its operation. */
export interface TransportOp {
  /** For logs and error details, e.g. `POST /bookings`. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Safe to send again: a lost answer of it leaves no doubt about its outcome. */
  idempotent: boolean;
}

/** One HTTP request to a partner. */
export interface PartnerRequest {
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
}

/** Which partner address a URL comes from (named in refusals). */
export type UrlField = 'base_url' | 'auth_url';

/** Errors of a request that prove it never left (nothing can have been executed). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * One partner's HTTP exchanges: the egress policy checked on the URL, the call's deadline, an
 * answer capped at `maxResponseBytes`, no redirects followed. Every failure is a PartnerCallError
 * saying whether it is transient and whether the partner may have executed the call.
 */
export class PartnerTransport {
  constructor(
    private readonly deps: {
      partnerId: string;
      egress: EgressPolicy;
      dispatcher: Dispatcher;
      log: Logger;
      maxResponseBytes: number;
    },
  ) {}

  /** Sends the request and reads its answer as text, before `deadlineAt`. */
  async fetchText(
    field: UrlField,
    url: string,
    init: PartnerRequest,
    op: TransportOp,
    correlationId: string,
    deadlineAt: number,
  ): Promise<{ status: number; text: string }> {
    const remaining = deadlineAt - Date.now();
    if (remaining <= 0) {
      throw this.failure('deadline_exceeded', `no time left for ${op.name}`, op, {
        transient: true,
        correlationId,
      });
    }
    try {
      // The URL as stored may predate the rules, or the rules may have changed since.
      checkPartnerUrl(this.deps.egress, field, url);
    } catch (error) {
      const reason = error instanceof ConnectorError ? error.message : String(error);
      throw this.refused(op, reason, correlationId);
    }
    // A timer cleared with the answer: AbortSignal.timeout's would fire for every call after it
    // ended, each building a DOMException, about 1 % of the connector's CPU under load.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException(`${op.name} timed out`, 'TimeoutError')),
      remaining,
    );
    const signal = deadline.signal;
    let answered: { status: number; text: string };
    try {
      answered = await this.exchange(url, init, signal, op, correlationId);
    } catch (error) {
      throw this.networkFailure(error, { field, op, correlationId, signal, remaining });
    } finally {
      clearTimeout(timer);
    }
    if (answered.status >= 300 && answered.status < 400) {
      // Redirects are not followed: a partner API that moved is a configuration fault.
      throw this.failure('unavailable', `${op.name} answered a redirect (${answered.status})`, op, {
        httpStatus: answered.status,
        transient: true,
        outcomeUnknown: op.method !== 'GET' && !op.idempotent,
        correlationId,
      });
    }
    return answered;
  }

  /** A PartnerCallError of this partner's call. */
  failure(
    kind: ErrorKind,
    message: string,
    op: { name: string },
    facts: Omit<PartnerCallFacts, 'partnerId' | 'operation'>,
  ): PartnerCallError {
    return new PartnerCallError(kind, message, {
      partnerId: this.deps.partnerId,
      operation: op.name,
      ...facts,
    });
  }

  private async exchange(
    url: string,
    init: PartnerRequest,
    signal: AbortSignal,
    op: TransportOp,
    correlationId: string,
  ): Promise<{ status: number; text: string }> {
    const response = await request(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      signal,
      dispatcher: this.deps.dispatcher,
    });
    const text = await this.readCapped(response);
    if (text === undefined) {
      const max = this.deps.maxResponseBytes;
      this.deps.log.warn(
        {
          operation: op.name,
          http_status: response.statusCode,
          max_bytes: max,
          correlation_id: correlationId,
        },
        'partner answer larger than PARTNER_MAX_RESPONSE_BYTES: aborted',
      );
      throw this.failure('unavailable', `partner answer to ${op.name} exceeds ${max} bytes`, op, {
        httpStatus: response.statusCode,
        transient: true,
        outcomeUnknown: op.method !== 'GET' && !op.idempotent,
        correlationId,
        tooLarge: true,
      });
    }
    return { status: response.statusCode, text };
  }

  /** What a request that got no (whole) answer failed with: refused, timed out or network. */
  private networkFailure(
    error: unknown,
    at: {
      field: UrlField;
      op: TransportOp;
      correlationId: string;
      signal: AbortSignal;
      remaining: number;
    },
  ): PartnerCallError {
    const { field, op, correlationId } = at;
    if (error instanceof PartnerCallError) return error;
    const stateChanging = op.method !== 'GET';
    const failed = error as {
      code?: unknown;
      reason?: unknown;
      cause?: { code?: unknown; reason?: unknown };
    };
    if (failed.code === 'EGRESS_REFUSED' || failed.cause?.code === 'EGRESS_REFUSED') {
      const reason = String(failed.reason ?? failed.cause?.reason ?? '');
      return this.refused(op, `${field} must name a public host: ${reason}`, correlationId);
    }
    if (at.signal.aborted) {
      return this.failure(
        'deadline_exceeded',
        `${op.name} timed out after ${Math.round(at.remaining)} ms`,
        op,
        { transient: true, outcomeUnknown: stateChanging && !op.idempotent, correlationId },
      );
    }
    const code = String(failed.code ?? failed.cause?.code ?? '');
    return this.failure('unavailable', `${op.name} failed: ${code || 'network error'}`, op, {
      transient: true,
      outcomeUnknown: stateChanging && !op.idempotent && !NOT_SENT.has(code),
      correlationId,
    });
  }

  /**
   * Reads the answer while it streams and gives up (destroying the connection) past
   * `maxResponseBytes`: undefined then. A declared `content-length` over the cap is refused before
   * reading anything.
   */
  private async readCapped(response: Dispatcher.ResponseData): Promise<string | undefined> {
    const max = this.deps.maxResponseBytes;
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      response.body.destroy();
      return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        response.body.destroy();
        return undefined;
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /** A call the egress policy refuses: not sent, not retried, not a partner fault. */
  private refused(op: { name: string }, reason: string, correlationId: string): PartnerCallError {
    this.deps.log.warn(
      { operation: op.name, reason, correlation_id: correlationId },
      'partner call refused by the egress policy',
    );
    const error = this.failure(
      'failed_precondition',
      `partner call refused: the partner's address is not allowed (PARTNER_ALLOWED_HOSTS)`,
      op,
      { transient: false, correlationId, egressRefused: true },
    );
    error.refusal = reason;
    return error;
  }
}
