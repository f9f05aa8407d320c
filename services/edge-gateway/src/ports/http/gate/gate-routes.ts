import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { SecureEntryBackend } from '../../../app/secure-entry.js';
import type { ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';

export const GateError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

const ScanBody = Type.Object(
  {
    payload: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'The text the scanner decoded from the PDF417 or QR code',
    }),
  },
  { additionalProperties: false },
);

const RESULTS = [
  'ADMITTED',
  'REPLAYED',
  'ALREADY_ADMITTED',
  'VOIDED',
  'WRONG_EVENT',
  'FORGED',
  'EXPIRED',
  'SUPERSEDED',
  'SANDBOX',
] as const;

export const ScanAnswer = Type.Object({
  admit: Type.Boolean({ description: 'Open the gate: true only for ADMITTED' }),
  result: Type.Union(RESULTS.map((r) => Type.Literal(r))),
  gateId: Type.String(),
  eventId: Type.String(),
  ticket: Type.Union([
    Type.Object({
      id: Type.String(),
      displayId: Type.String(),
      section: Type.String(),
      row: Type.String(),
      seat: Type.String(),
    }),
    Type.Null(),
  ]),
  admittedAt: Type.Optional(Type.String({ format: 'date-time' })),
  admittedByGateId: Type.Optional(Type.String()),
});

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The gate API for scanners (`/gate/v1`): `POST /scans` with a gate's own bearer token (issued by
 * `POST /admin/v1/gates`). Every evaluated scan is a 200 whose `admit` says whether to open; bad
 * input is 400, a missing, unknown or revoked gate token 401, a gate over its scan bound
 * (secure-entry's `GATE_SCANS_PER_MINUTE`, `GATE_FORGED_SCANS_PER_MINUTE`) 429 with Retry-After.
 */
export function gateRoutes(backends: { secureEntry: SecureEntryBackend }) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    await familyScope.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        const header = request.headers.authorization;
        const match = typeof header === 'string' ? BEARER.exec(header) : null;
        if (!match) return sendFamilyError(reply, family, family.unauthorized);
        request.gateToken = match[1]!;
      });
      scope.post(
        '/scans',
        {
          schema: {
            tags: [family.title],
            summary: 'Validate one scanned entry barcode; a ticket is admitted at most once',
            security: [{ gateToken: [] }],
            body: ScanBody,
            response: {
              200: ScanAnswer,
              400: GateError,
              401: GateError,
              413: GateError,
              415: GateError,
              429: GateError,
              503: GateError,
              504: GateError,
            },
          },
        },
        async (request, reply) => {
          const { payload } = request.body as Static<typeof ScanBody>;
          const answer = await backends.secureEntry
            .validateScan(request.gateToken ?? '', payload)
            .catch((error: unknown) => {
              // A gate over its scan bound: say when its window ends.
              const wait = (error as { details?: { retryAfterMs?: unknown } }).details
                ?.retryAfterMs;
              if (typeof wait === 'number' && wait > 0)
                void reply.header('retry-after', String(Math.ceil(wait / 1000)));
              throw error;
            });
          return {
            admit: answer.result === 'ADMITTED',
            result: answer.result,
            gateId: answer.gateId,
            eventId: answer.eventId,
            ticket: answer.ticketId
              ? {
                  id: answer.ticketId,
                  displayId: answer.displayId,
                  section: answer.section,
                  row: answer.row,
                  seat: answer.seat,
                }
              : null,
            ...(answer.admittedAt ? { admittedAt: answer.admittedAt } : {}),
            ...(answer.admittedByGateId ? { admittedByGateId: answer.admittedByGateId } : {}),
          };
        },
      );
    });
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The gate's bearer token, set by the gate API's hook; never logged. */
    gateToken?: string;
  }
}
