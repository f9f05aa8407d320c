// Everything generated for proto package marquee.publishing.v1 (proto/marquee/publishing/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/publishing/v1/service.js';
