/**
 * Keys the integration globalSetup hands to test workers with `project.provide` (read with vitest's
 * `inject`). Strings only: provided values cross a process boundary.
 */
export const KAFKA_BROKERS_KEY = 'marquee.kafkaBrokers';
export const MONGO_URL_KEY = 'marquee.mongoUrl';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Comma-separated `host:port` list, as in `KAFKA_BROKERS`. */
    'marquee.kafkaBrokers': string | undefined;
    'marquee.mongoUrl': string | undefined;
  }
}
