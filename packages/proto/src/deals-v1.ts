// Everything generated for proto package marquee.deals.v1 (proto/marquee/deals/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/deals/v1/deal.js';
export * from './gen/marquee/deals/v1/service.js';
