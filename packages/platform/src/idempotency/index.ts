/**
 * `@marquee/platform/idempotency`: idempotency keys for gRPC writes (the `Idempotency-Key` header of
 * the public APIs, passed through by the edge). See README.md in this folder.
 */
export {
  createIdempotency,
  idempotencyIndexes,
  IDEMPOTENCY_KEY_IN_PROGRESS,
  IDEMPOTENCY_KEY_REUSED,
  RECORDED_ERROR_KINDS,
  type ClaimedOutcome,
  type ClaimedRunOptions,
  type Idempotency,
  type KeyClaim,
  type IdempotencyOptions,
  type RunOptions,
  type IdempotencyRecord,
  type IdempotentCall,
} from './idempotency.js';
export { idempotencySecrets, type IdempotencySecrets, type SealedBytes } from './sealing.js';
