/**
 * Failure drills of the back office: after carrying out a drilled operation the partner delays its
 * answer, so that the caller's deadline passes with the outcome unknown (what reconciliation is
 * for). Operations are named as in the 3P API, method and path relative to its base with `{param}`
 * placeholders (`POST /bookings`, `POST /orders/{inventory_order}`).
 */
export class Drills {
  #delayMs = 0;
  #operations = new Set<string>();

  set(drill: { delayMs?: number; operations?: readonly string[] }): void {
    this.#delayMs = drill.delayMs ?? 0;
    this.#operations = new Set(drill.operations ?? []);
  }

  current(): { delayMs: number; operations: string[] } {
    return { delayMs: this.#delayMs, operations: [...this.#operations] };
  }

  /** Milliseconds to hold the answer of this operation back (0: none). */
  delayFor(operation: string | undefined): number {
    return operation !== undefined && this.#operations.has(operation) ? this.#delayMs : 0;
  }
}
