/** cart's errors as the edge reads them: the partner cart error code in `details.reason`. */
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { AppError, isAppErrorLike } from '@marquee/platform/errors';
import { callUnary, type UnaryMethodName } from '@marquee/platform/grpc';
import type { CartServiceClient } from '@marquee/proto/cart/v1';

/** Trailer of the standard rich error model: a serialised `google.rpc.Status`. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/**
 * The `google.rpc.ErrorInfo` inside a serialised `google.rpc.Status` (field 3, `details`, is a
 * repeated `google.protobuf.Any`), read with the protobuf wire reader: the edge has no generated
 * code for google/rpc, and three small messages do not justify it. Undefined when absent or
 * malformed.
 */
export function errorInfoOf(statusBytes: Uint8Array): ErrorInfo | undefined {
  try {
    const status = new BinaryReader(statusBytes);
    while (status.pos < status.len) {
      const [field, wireType] = status.tag();
      if (field !== 3) {
        status.skip(wireType);
        continue;
      }
      const any = new BinaryReader(status.bytes());
      let typeUrl = '';
      let value: Uint8Array | undefined;
      while (any.pos < any.len) {
        const [f, w] = any.tag();
        if (f === 1) typeUrl = any.string();
        else if (f === 2) value = any.bytes();
        else any.skip(w);
      }
      if (typeUrl === ERROR_INFO_TYPE && value) return readErrorInfo(value);
    }
  } catch {
    // Not a google.rpc.Status: no reason.
  }
  return undefined;
}

function readErrorInfo(bytes: Uint8Array): ErrorInfo {
  const reader = new BinaryReader(bytes);
  const info: ErrorInfo = { reason: '', domain: '', metadata: {} };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) info.reason = reader.string();
    else if (field === 2) info.domain = reader.string();
    else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = '';
      let value = '';
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      info.metadata[key] = value;
    } else reader.skip(wireType);
  }
  return info;
}

/**
 * The error a failed call stands for, with the partner cart error code as `details.reason`: from
 * the `google.rpc.ErrorInfo` of the status details when the service sent one, else as the platform's
 * JSON details carried it (`details.reason`). ErrorInfo metadata (e.g. `retry_after_seconds`) joins
 * the details.
 */
export function withErrorReason(error: unknown): unknown {
  if (!isAppErrorLike(error)) return error;
  const cause = (error as { cause?: { metadata?: { get?: (key: string) => unknown[] } } }).cause;
  const raw =
    typeof cause?.metadata?.get === 'function' ? cause.metadata.get(STATUS_DETAILS_KEY) : [];
  const bytes = raw.find((value): value is Buffer => Buffer.isBuffer(value));
  const info = bytes ? errorInfoOf(bytes) : undefined;
  if (!info?.reason) return error;
  return new AppError(error.kind, error.message, {
    cause,
    details: { ...error.details, ...info.metadata, reason: info.reason },
  });
}

/** Calls cart; a failure carries the partner cart error code (see {@link withErrorReason}). */
export function reasonedUnary(client: CartServiceClient) {
  return async function unary<M extends UnaryMethodName<CartServiceClient>>(
    method: M,
    request: Parameters<typeof callUnary<CartServiceClient, M>>[2],
  ): Promise<Awaited<ReturnType<typeof callUnary<CartServiceClient, M>>>> {
    try {
      return await callUnary(client, method, request);
    } catch (error) {
      throw withErrorReason(error);
    }
  };
}

export type CartUnary = ReturnType<typeof reasonedUnary>;
