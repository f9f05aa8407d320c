import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadPublisherConfig, type PublisherConfig } from './config.js';
import { composePublisher } from './service.js';

export { configSchema, loadPublisherConfig, type PublisherConfig } from './config.js';

/** publisher as the process runner and the embedded default see it. */
export const publisherService: ServiceDefinition<PublisherConfig> = {
  name: 'publisher',
  loadConfig: loadPublisherConfig,
  compose: composePublisher,
  // The request's `app_id` says whose event it is: only the edge, which resolved it from the
  // caller's API key, may assert it.
  callers: {
    'marquee.publishing.v1.PublisherService': {
      PublishEvent: ['edge-gateway'],
      UpdateEvent: ['edge-gateway'],
      DeleteEvent: ['edge-gateway'],
      GetEvent: ['edge-gateway'],
      ListEvents: ['edge-gateway'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
