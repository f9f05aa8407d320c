// Everything generated for proto package marquee.auth.v1 (proto/marquee/auth/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/auth/v1/app.js';
export * from './gen/marquee/auth/v1/service.js';
export * from './gen/marquee/auth/v1/fan.js';
