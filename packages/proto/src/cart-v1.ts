// Everything generated for proto package marquee.cart.v1 (proto/marquee/cart/v1). Hand-written barrel:
// src/barrels.test.ts fails when a generated file of the package is missing here.
export * from './gen/marquee/cart/v1/booking.js';
export * from './gen/marquee/cart/v1/commerce.js';
export * from './gen/marquee/cart/v1/order.js';
export * from './gen/marquee/cart/v1/queue.js';
export * from './gen/marquee/cart/v1/service.js';
export * from './gen/marquee/cart/v1/top_picks.js';
export * from './gen/marquee/cart/v1/waiting_room.js';
