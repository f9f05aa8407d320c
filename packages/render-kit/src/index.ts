export * from './format.js';
export * from './render.js';
