import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FamilyError } from '../families/family.js';
import { familyValidatorCompiler } from '../families/register-family.js';

/** The most a GET body may hold: the server's body limit for every other method (1 MiB). */
export const GET_BODY_LIMIT = 1_048_576;

export type GetBody<T> = { ok: true; body: T | undefined } | { ok: false; error: FamilyError };

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

const invalid = (detail: string): GetBody<never> => ({
  ok: false,
  error: { status: 400, code: 'invalid_request', detail },
});

/**
 * Reads a body sent with a GET, checked against `schema` as fastify checks a POST body: fastify
 * never reads one (GET is bodyless to its router), but the commerce offers API lets a GET carry the
 * password that reveals protected offers (`{"displayId": "..."}`) in its body.
 *
 * No body (no `Content-Length`, or 0, and no `Transfer-Encoding`; or an empty chunked one) is
 * `body: undefined`. A body is refused in the family's terms, as a POST body would be: 415 unless
 * its media type is JSON, 413 over {@link GET_BODY_LIMIT}, 400 when it is not JSON or the schema
 * refuses it (no coercion, no unknown fields).
 */
export function getBodyReader<T>(schema: TSchema, url: string) {
  const validate = familyValidatorCompiler({ schema, method: 'POST', url, httpPart: 'body' }) as ((
    data: unknown,
  ) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

  return async (request: FastifyRequest): Promise<GetBody<T>> => {
    const { headers } = request;
    const length = headers['content-length'];
    if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))
      return { ok: true, body: undefined };
    const type = headers['content-type'];
    if (type === undefined || !JSON_MEDIA_TYPE.test(type)) {
      request.raw.resume();
      return {
        ok: false,
        error: {
          status: 415,
          code: 'unsupported_media_type',
          detail: 'Content-Type not accepted (send application/json)',
        },
      };
    }
    const text = await readLimited(request, GET_BODY_LIMIT);
    if (text === undefined)
      return {
        ok: false,
        error: { status: 413, code: 'payload_too_large', detail: 'Body larger than 1 MiB' },
      };
    if (text.trim() === '') return { ok: true, body: undefined };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return invalid('Body is not valid JSON');
    }
    if (!validate(body)) {
      const first = validate.errors?.[0];
      return invalid(`body${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`);
    }
    return { ok: true, body: body as T };
  };
}

/** The request's body as UTF-8, or undefined once it passes `limit` bytes (the rest is drained). */
function readLimited(request: FastifyRequest, limit: number): Promise<string | undefined> {
  const raw = request.raw;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      raw.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size <= limit) {
        chunks.push(bytes);
        return;
      }
      // Not destroyed: the answer still goes out on this connection; what is left is read and dropped.
      done();
      raw.resume();
      resolve(undefined);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    raw.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
