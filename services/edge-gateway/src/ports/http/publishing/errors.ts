import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { propertyPath } from '@marquee/api-schemas';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_REUSED } from '@marquee/platform/idempotency';
import type { ApiFamily } from '../families/family.js';
import { sendFamilyError, toFamilyError } from '../families/register-family.js';
import { SUPPORTED_VERSION } from './schemas.js';

type PropertyMap = Record<string, string>;

interface ErrorItem {
  status: 'Rejected' | 'Error';
  code: string;
  detail: string;
  invalidProperties: Record<string, unknown>;
  missingProperties: Record<string, unknown>;
}

/** The publishing error body: `errors[]` with status, code, detail and the property maps. */
const errorBody = (items: ErrorItem[]) => ({ errors: items });

const rejected = (code: string, detail: string, invalid: PropertyMap = {}): ErrorItem => ({
  status: 'Rejected',
  code,
  detail,
  invalidProperties: invalid,
  missingProperties: {},
});

function validationItem(error: FastifyError): ErrorItem {
  const invalid: PropertyMap = {};
  for (const item of error.validation ?? []) {
    const path = propertyPath(item.instancePath) || '(body)';
    invalid[path] ??= (item.message ?? 'is invalid').replace(/^./, (c) => c.toLowerCase());
  }
  return rejected('INVALID_PROPERTY', 'Some properties have a wrong type or format', invalid);
}

/**
 * Every error of the publishing routes in the publishing body. Errors from publisher carry its own
 * items (`details.errors`: rule violations, stale versions, unknown ids); everything else goes
 * through the family's mapping. A body that is not JSON is a malformed request: 400.
 */
export function sendPublishingError(
  family: ApiFamily,
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
) {
  const error = err as FastifyError & { kind?: string; details?: { errors?: unknown } };
  if (error.validation) {
    return reply.code(400).send(errorBody([validationItem(error)]));
  }
  if (
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error instanceof SyntaxError
  ) {
    // Also a body with a prototype-poisoning key (`__proto__`, `constructor.prototype`): fastify's
    // JSON parser refuses it as it refuses one that is not JSON, with the same error.
    return reply
      .code(400)
      .send(errorBody([rejected('MALFORMED_REQUEST', 'The request body is not valid JSON')]));
  }
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  if (reason === IDEMPOTENCY_KEY_REUSED) {
    request.log.info({ status: 422, family: family.id }, 'idempotency key reused');
    return reply
      .code(422)
      .send(
        errorBody([
          rejected(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different body; use a new key for a new publication',
          ),
        ]),
      );
  }
  if (reason === IDEMPOTENCY_KEY_IN_PROGRESS) {
    return reply.code(409).send(
      errorBody([
        {
          ...rejected(
            'IDEMPOTENCY_KEY_IN_PROGRESS',
            'The first request with this Idempotency-Key is still running; retry later',
          ),
          status: 'Error',
        },
      ]),
    );
  }
  const mapped = toFamilyError(family, error);
  const items = error.details?.errors;
  if (typeof error.kind === 'string' && Array.isArray(items) && items.length > 0) {
    request.log.info({ status: mapped.status, family: family.id }, 'publication rejected');
    return reply.code(mapped.status).send(errorBody(items as ErrorItem[]));
  }
  if (mapped.status >= 500) request.log.error({ err, family: family.id }, 'request failed');
  return sendFamilyError(reply, family, mapped);
}

/** True, with the 404 `UNSUPPORTED_VERSION` sent, when the path names a version other than v2. */
export function refusedVersion(reply: FastifyReply, version: string | undefined): boolean {
  if (version === undefined || version === SUPPORTED_VERSION) return false;
  void reply.code(404).send(
    errorBody([
      {
        status: 'Error',
        code: 'UNSUPPORTED_VERSION',
        detail: `Unknown publishing API version '${version}'; use ${SUPPORTED_VERSION}`,
        invalidProperties: {},
        missingProperties: {},
      },
    ]),
  );
  return true;
}
