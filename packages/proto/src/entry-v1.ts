// Everything generated for proto package marquee.entry.v1 (proto/marquee/entry/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/entry/v1/service.js';
export * from './gen/marquee/entry/v1/ticket.js';
