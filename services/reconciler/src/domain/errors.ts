/** Error kinds the reconciler raises; the gRPC port maps them to status codes (structural `kind`). */
export type ReconcilerErrorKind = 'invalid_argument' | 'not_found' | 'unavailable';

export class ReconcilerError extends Error {
  readonly kind: ReconcilerErrorKind;

  constructor(kind: ReconcilerErrorKind, message: string) {
    super(message);
    this.name = 'ReconcilerError';
    this.kind = kind;
  }
}
