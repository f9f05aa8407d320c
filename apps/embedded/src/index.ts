export { startEmbedded, type EmbeddedMarquee, type EmbeddedOptions } from './embedded.js';
