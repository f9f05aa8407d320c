/** The time, as a port: use cases ask a clock, so tests can set it. */
export interface Clock {
  now(): Date;
}

/** The clock of the machine. */
export const systemClock: Clock = { now: () => new Date() };
