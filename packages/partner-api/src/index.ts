/**
 * `@marquee/partner-api`: the 3P API that partner ticketing systems host, as a contract. Types,
 * schemas, scopes, error ids and the event rules schemas cannot express; no other behaviour. partner-reference serves it, 3p-connector calls
 * it, and test/conformance checks any implementation against it.
 */
export * from './errors.js';
export * from './event-rules.js';
export * from './scopes.js';
export * from './schemas.js';
export { checkAnswer, type AnswerCheck } from './check.js';
