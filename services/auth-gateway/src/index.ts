import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';
import { composeAuthGateway } from './service.js';

export { configSchema, loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';

/** auth-gateway as the process runner and the embedded default see it. */
export const authGatewayService: ServiceDefinition<AuthGatewayConfig> = {
  name: 'auth-gateway',
  loadConfig: loadAuthGatewayConfig,
  compose: composeAuthGateway,
  // The edge only: it checked the admin token or resolved the API key before it asks, and the
  // admin and write RPCs take an identity (app, fan, grant) from the request as given.
  callers: {
    'marquee.auth.v1.AuthService': {
      ValidateApiKey: ['edge-gateway'],
      IntrospectToken: ['edge-gateway'],
      CheckRateLimit: ['edge-gateway'],
      CreateApp: ['edge-gateway'],
      CreateFan: ['edge-gateway'],
      RevokeGrant: ['edge-gateway'],
      DeleteFan: ['edge-gateway'],
      SetAppAccess: ['edge-gateway'],
      GetAppAccess: ['edge-gateway'],
      GetApp: ['edge-gateway'],
      SetAppOAuth: ['edge-gateway'],
      SetAppQuota: ['edge-gateway'],
      ResolveTrackingId: ['edge-gateway'],
    },
  },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
