import type { ErrorKind } from '@marquee/platform/kernel';

/** The reconciler's error: a `kind` of the platform's vocabulary, which the gRPC port maps to a status. */
export class ReconcilerError extends Error {
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.name = 'ReconcilerError';
    this.kind = kind;
  }
}
