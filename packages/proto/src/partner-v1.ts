// Everything generated for proto package marquee.partner.v1 (proto/marquee/partner/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/partner/v1/partner.js';
export * from './gen/marquee/partner/v1/service.js';
