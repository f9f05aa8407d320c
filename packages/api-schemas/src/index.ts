/**
 * `@marquee/api-schemas`: TypeBox schemas of public request bodies that more than one deployable
 * checks (the edge at the door, the owning service again behind gRPC). Contracts, not behaviour.
 */
export * from './published-event.js';
export * from './property-path.js';
export * from './currency.js';
