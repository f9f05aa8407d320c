import type { ServiceDefinition } from '@marquee/platform/service';
import { loadPublisherConfig, type PublisherConfig } from './config.js';
import { composePublisher } from './service.js';

export { configSchema, loadPublisherConfig, type PublisherConfig } from './config.js';

/** publisher as the process runner and the embedded default see it. */
export const publisherService: ServiceDefinition<PublisherConfig> = {
  name: 'publisher',
  loadConfig: loadPublisherConfig,
  compose: composePublisher,
};
