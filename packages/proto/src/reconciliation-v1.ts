// Everything generated for proto package marquee.reconciliation.v1 (proto/marquee/reconciliation/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/reconciliation/v1/case.js';
export * from './gen/marquee/reconciliation/v1/service.js';
