import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A recording proxy in front of stripe-mock, for the tiers that run cart on its Stripe adapter.
 *
 * stripe-mock checks every request against Stripe's OpenAPI and answers fixtures, but it keeps no
 * state: every PaymentIntent it returns is `requires_payment_method`, which the adapter reads as a
 * decline, and it replays nothing for an idempotency key. So the proxy forwards every request to
 * stripe-mock (which still refuses a request outside Stripe's API) and lays the little state the
 * flow needs over its answers, as Stripe would:
 *
 * - a PaymentIntent created or confirmed with a test PaymentMethod moves as that card would
 *   (`pm_card_visa` and the other approving test cards: `requires_capture` with manual capture;
 *   `pm_card_chargeDeclined*`: a 402 card error; `pm_card_authenticationRequired`,
 *   `pm_card_threeDSecure2Required`: `requires_action`);
 * - capture and cancel move it on, and refuse an intent that has moved on with
 *   `payment_intent_unexpected_state`, as Stripe does;
 * - a retrieve answers the intent's state; an expanded `payment_method` is stripe-mock's
 *   PaymentMethod fixture of that id (brand and last four digits);
 * - a request whose `Idempotency-Key` was seen is answered the first answer again, with
 *   `Idempotent-Replayed: true`, without being forwarded.
 *
 * Every request is recorded (method, path, idempotency key, form body, status), so a test asserts
 * what Stripe received. `dropResponses` makes the next matching requests reach "Stripe" (their
 * effect happens) while their answers are lost, as a network failure after Stripe acted.
 *
 * The proxy serves HTTPS, with a certificate made for the run by `openssl` (`caFile`: hand it to
 * the client as `NODE_EXTRA_CA_CERTS`): cart refuses a plain-http Stripe API base in production.
 */

export interface StripeRequest {
  method: string;
  /** The path without its query, e.g. `/v1/payment_intents/pi_123/capture`. */
  path: string;
  idempotencyKey?: string;
  /** The form body; a repeated key (`expand[]`) holds its values joined by `,`. */
  form: Record<string, string>;
  /** The status code answered (0: the answer was dropped). */
  status: number;
  /** Answered from the idempotency record, not forwarded. */
  replayed: boolean;
  /** The PaymentIntent the request made or acted on, and its status after it. */
  intentId?: string;
  intentStatus?: string;
}

export interface StripeIntent {
  id: string;
  status: string;
  amount: number;
  currency: string;
  amountCapturable: number;
  amountReceived: number;
  paymentMethod: string;
}

export interface StripeRecorder {
  /** `https://127.0.0.1:<port>`: cart's `STRIPE_API_BASE`. */
  url: string;
  /** The certificate to trust (`NODE_EXTRA_CA_CERTS`). */
  caFile: string;
  /** Every request received so far, oldest first. */
  requests(): StripeRequest[];
  /** The PaymentIntents made through the proxy, as they are now. */
  intents(): StripeIntent[];
  /**
   * The next `count` requests of this method whose path ends with `pathEnd` reach stripe-mock and
   * get no answer (the connection is closed). The Stripe SDK sends a request whose connection was
   * closed once more, under the same idempotency key, even with retries off: lose two answers to
   * make a call fail.
   */
  dropResponses(method: string, pathEnd: string, count: number): void;
  /**
   * The cardholder finished the 3-D Secure challenge of an intent in `requires_action`, as
   * Stripe.js `handleNextAction` would: passed, it is `requires_capture`; failed,
   * `requires_payment_method`.
   */
  completeAuthentication(intentId: string, passed: boolean): void;
  stop(): Promise<void>;
}

/** Test PaymentMethods and what the card does (Stripe's documented test cards). */
function cardOutcome(paymentMethod: string): 'approve' | 'decline' | 'authenticate' {
  if (paymentMethod.startsWith('pm_card_chargeDeclined')) return 'decline';
  if (/^pm_card_(authenticationRequired|threeDSecure2Required)/.test(paymentMethod))
    return 'authenticate';
  return 'approve';
}

const declineCodeOf = (paymentMethod: string): string =>
  paymentMethod === 'pm_card_chargeDeclinedInsufficientFunds'
    ? 'insufficient_funds'
    : paymentMethod === 'pm_card_chargeDeclinedExpiredCard'
      ? 'expired_card'
      : 'generic_decline';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export async function startStripeRecorder(target: string): Promise<StripeRecorder> {
  const dir = mkdtempSync(join(tmpdir(), 'stripe-recorder-'));
  const [keyFile, caFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', caFile, '-days', '2', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  const recorded: StripeRequest[] = [];
  const intents = new Map<string, StripeIntent>();
  const replays = new Map<string, Answer>();
  const drops: Array<{ method: string; pathEnd: string }> = [];

  const forward = async (
    method: string,
    url: string,
    headers: IncomingMessage['headers'],
    body: string,
  ): Promise<Answer> => {
    const response = await fetch(new URL(url, target), {
      method,
      headers: {
        authorization: String(headers.authorization ?? ''),
        'content-type': String(headers['content-type'] ?? 'application/x-www-form-urlencoded'),
        ...(headers['stripe-version']
          ? { 'stripe-version': String(headers['stripe-version']) }
          : {}),
      },
      ...(method === 'GET' || method === 'DELETE' ? {} : { body }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const expandMethod = async (answer: Answer, form: Record<string, string>, query: string) => {
    // The SDK writes `expand[0]=payment_method`, in the form body or the query.
    const expand = [...Object.entries(form), ...new URLSearchParams(query)]
      .filter(([key]) => /^expand\[\d*\]$/.test(key))
      .flatMap(([, value]) => value.split(','));
    const method = answer.body.payment_method;
    if (!expand.includes('payment_method') || typeof method !== 'string') return;
    const fixture = await fetch(new URL(`/v1/payment_methods/${method}`, target), {
      headers: { authorization: 'Bearer sk_test_recorder' },
    });
    if (fixture.ok)
      answer.body.payment_method = { ...((await fixture.json()) as object), id: method };
  };

  /** The state transition of a PaymentIntent request stripe-mock accepted. */
  const overlay = (
    method: string,
    path: string,
    form: Record<string, string>,
    answer: Answer,
  ): Answer => {
    const match = /^\/v1\/payment_intents(?:\/([^/]+))?(?:\/(capture|cancel|confirm))?$/.exec(path);
    if (!match || answer.status !== 200) return answer;
    const [, pathId, action] = match;
    const id = pathId ?? String(answer.body.id);
    let intent = intents.get(id);
    if (!pathId && method === 'POST') {
      intent = {
        id,
        status: 'requires_payment_method',
        amount: Number(form.amount),
        currency: form.currency ?? 'eur',
        amountCapturable: 0,
        amountReceived: 0,
        paymentMethod: form.payment_method ?? '',
      };
      intents.set(id, intent);
    }
    if (!intent) return answer;
    const unexpected = (): Answer => ({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'payment_intent_unexpected_state',
          message: `This PaymentIntent's status is ${intent.status}.`,
          payment_intent: { ...answer.body, status: intent.status },
        },
      },
    });
    if (action === 'capture') {
      if (intent.status !== 'requires_capture') return unexpected();
      intent.status = 'succeeded';
      intent.amountReceived = Number(form.amount_to_capture ?? intent.amountCapturable);
      intent.amountCapturable = 0;
    } else if (action === 'cancel') {
      if (intent.status === 'succeeded' || intent.status === 'canceled') return unexpected();
      intent.status = 'canceled';
      intent.amountCapturable = 0;
    } else if (action === 'confirm' || (!pathId && form.confirm === 'true')) {
      if (form.payment_method) intent.paymentMethod = form.payment_method;
      const outcome = cardOutcome(intent.paymentMethod);
      if (outcome === 'decline') {
        intent.status = 'requires_payment_method';
        const declineCode = declineCodeOf(intent.paymentMethod);
        return {
          status: 402,
          body: {
            error: {
              type: 'card_error',
              code: declineCode === 'expired_card' ? 'expired_card' : 'card_declined',
              decline_code: declineCode,
              message: 'Your card was declined.',
              payment_intent: { ...answer.body, id, status: intent.status },
            },
          },
        };
      }
      intent.status = outcome === 'authenticate' ? 'requires_action' : 'requires_capture';
      if (intent.status === 'requires_capture') intent.amountCapturable = intent.amount;
    }
    return {
      status: 200,
      body: {
        ...answer.body,
        id,
        status: intent.status,
        amount: intent.amount,
        amount_capturable: intent.amountCapturable,
        amount_received: intent.amountReceived,
        payment_method: intent.paymentMethod,
        last_payment_error: null,
        next_action:
          intent.status === 'requires_action'
            ? { type: 'use_stripe_sdk', use_stripe_sdk: {} }
            : null,
      },
    };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const method = request.method ?? 'GET';
    const [path = '/', query = ''] = (request.url ?? '/').split('?');
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(body))
      form[key] = key in form ? `${form[key]},${value}` : value;
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const entry: StripeRequest = {
      method,
      path,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      form,
      status: 0,
      replayed: false,
    };
    recorded.push(entry);
    let answer = idempotencyKey ? replays.get(idempotencyKey) : undefined;
    if (answer) entry.replayed = true;
    else {
      answer = overlay(
        method,
        path,
        form,
        await forward(method, request.url ?? '/', request.headers, body),
      );
      if (answer.status === 200) await expandMethod(answer, form, query);
      if (idempotencyKey && answer.status < 500) replays.set(idempotencyKey, answer);
    }
    const id =
      answer.body.id ??
      (answer.body.error as { payment_intent?: { id?: string } })?.payment_intent?.id;
    if (typeof id === 'string' && intents.has(id)) {
      entry.intentId = id;
      entry.intentStatus = intents.get(id)!.status;
    }
    const drop = drops.findIndex((d) => d.method === method && path.endsWith(d.pathEnd));
    if (drop >= 0) {
      drops.splice(drop, 1);
      request.socket.destroy();
      return;
    }
    entry.status = answer.status;
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      'request-id': `req_recorder_${recorded.length}`,
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      ...(entry.replayed ? { 'idempotent-replayed': 'true' } : {}),
    });
    response.end(JSON.stringify(answer.body));
  };

  const server: Server = createServer(
    { key: readFileSync(keyFile), cert: readFileSync(caFile) },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (response.headersSent) return response.destroy();
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    requests: () => [...recorded],
    intents: () => [...intents.values()].map((intent) => ({ ...intent })),
    dropResponses: (method, pathEnd, count) => {
      for (let n = 0; n < count; n++) drops.push({ method, pathEnd });
    },
    completeAuthentication: (intentId, passed) => {
      const intent = intents.get(intentId);
      if (intent?.status !== 'requires_action')
        throw new Error(`stripe-recorder: ${intentId} is not awaiting authentication`);
      intent.status = passed ? 'requires_capture' : 'requires_payment_method';
      intent.amountCapturable = passed ? intent.amount : 0;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
