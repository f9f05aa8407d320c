/**
 * The benchmarks' settings from the environment: a bad value stops the run at once with exit
 * code 2 and a line naming the setting and what it takes.
 */

/** A whole number from 1 to `max`; `fallback` when unset or empty. */
export function positive(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    console.error(`${name} is a whole number from 1 to ${max}`);
    process.exit(2);
  }
  return value;
}

/** One of `allowed`; `fallback` when unset or empty. */
export function oneOf(name: string, fallback: string, allowed: readonly string[]): string {
  const value = process.env[name] || fallback;
  if (!allowed.includes(value)) {
    console.error(`${name} is ${allowed.join(' or ')}`);
    process.exit(2);
  }
  return value;
}
