import { ExponentialBackoff, noJitterGenerator, type IBackoff } from 'cockatiel';

/** Far more failures than any cap lets a doubling pause grow through. */
const MAX_STEPS = 64;

/**
 * The pause before the next try after `failures` failed tries (from 1): `firstMs` after the first,
 * doubling with each further failure, at most `maxMs`. cockatiel's exponential backoff (without
 * jitter) computes it, so that a sweeper that stores the next try's due time in a record and a
 * retry that sleeps in process pause alike.
 */
export function backoffMs(
  failures: number,
  { firstMs, maxMs }: { firstMs: number; maxMs: number },
): number {
  const steps = Number.isNaN(failures) ? 1 : Math.max(1, Math.floor(Math.min(failures, MAX_STEPS)));
  let backoff: IBackoff<unknown> = new ExponentialBackoff({
    initialDelay: firstMs,
    maxDelay: maxMs,
    generator: noJitterGenerator,
  }).next();
  for (let step = 1; step < steps && backoff.duration < maxMs; step += 1)
    backoff = backoff.next(undefined);
  return backoff.duration;
}
