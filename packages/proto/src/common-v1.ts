// Everything generated for proto package marquee.common.v1 (proto/marquee/common/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/common/v1/envelope.js';
export * from './gen/marquee/common/v1/geo.js';
export * from './gen/marquee/common/v1/money.js';
export * from './gen/marquee/common/v1/paging.js';
export * from './gen/marquee/common/v1/text.js';
