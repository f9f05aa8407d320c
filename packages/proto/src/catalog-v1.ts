// Everything generated for proto package marquee.catalog.v1 (proto/marquee/catalog/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/catalog/v1/availability.js';
export * from './gen/marquee/catalog/v1/event.js';
export * from './gen/marquee/catalog/v1/service.js';
