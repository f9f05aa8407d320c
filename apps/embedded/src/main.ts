// `pnpm start`: the embedded default (docs/run-modes.md). Everything in one process, ready in seconds.
import { createLifecycle } from '@marquee/platform/lifecycle';
import { createLogger } from '@marquee/platform/logger';
import { applyV8Flags } from '@marquee/platform/v8';
import { loadEmbeddedConfig } from './config.js';
import { startEmbedded } from './embedded.js';
import { hostedV8Options } from './services.js';

// The runtime flags of every service this process hosts, before any of them starts; the launch hook
// of the start script gave it their node options (both from each service's package.json).
applyV8Flags(hostedV8Options().runtimeFlags);

const config = loadEmbeddedConfig();

const logger = createLogger({ service: 'marquee-embedded', level: config.LOG_LEVEL });
const lifecycle = createLifecycle({ logger, timeoutMs: 10_000 });
const started = Date.now();
const marquee = await startEmbedded({
  host: config.HOST,
  port: config.PORT,
  partnerPort: config.PARTNER_PORT,
  adminToken: config.ADMIN_TOKEN,
  partnerClient: { id: config.PARTNER_CLIENT_ID, secret: config.PARTNER_CLIENT_SECRET },
  logger,
  env: { LOG_LEVEL: config.LOG_LEVEL },
  metricsPort: config.METRICS_PORT,
});
lifecycle.onStop('marquee', () => marquee.stop());
lifecycle.handleSignals();

const { partner } = marquee;
const partnerClient = `client ${partner.clientId}${partner.clientIdGenerated ? '' : ' (from PARTNER_CLIENT_ID)'} / ${
  partner.clientSecretGenerated ? partner.clientSecret : 'secret from PARTNER_CLIENT_SECRET'
}`;
const tokenNote = marquee.adminTokenGenerated
  ? '(generated for this run; set ADMIN_TOKEN to choose it)'
  : '(from ADMIN_TOKEN)';
console.log(`
Marquee is running: every service in this process, in-memory event bus and storage (${Date.now() - started} ms)
  public API      ${marquee.baseUrl}        health: ${marquee.baseUrl}/healthz
  API reference   ${marquee.baseUrl}/docs   (OpenAPI JSON: ${marquee.baseUrl}/openapi.json)
  partner 3P API  ${marquee.partnerUrl}/v1   (token: ${marquee.partnerUrl}/oauth/token, ${partnerClient})
  partner office  ${marquee.partnerUrl}/admin/v1   (its own token: ${marquee.partner.adminToken})
  demo partner    registered as ${marquee.partner.id}, venues ${marquee.partner.venues.join(', ')}: ${marquee.partner.importedEvents} events imported
                  see them: curl -s '${marquee.baseUrl}/discovery/v2/events.json?apikey=${marquee.demo.apiKey}'
  admin token     ${marquee.adminToken}   ${tokenNote}
  metrics         ${marquee.metricsUrl}   (Prometheus text, every service of this process)

  demo app        API key ${marquee.demo.apiKey}
                  client id ${marquee.demo.clientId}   client secret ${marquee.demo.clientSecret}
                  redirect URI ${marquee.demo.redirectUri}
  demo fan        ${marquee.demo.fanEmail} / ${marquee.demo.fanPassword}
  sign in         ${marquee.baseUrl}/oauth/authorize?response_type=code&scope=all&client_id=${marquee.demo.clientId}&redirect_uri=${encodeURIComponent(marquee.demo.redirectUri)}

  try: curl -s -X POST ${marquee.baseUrl}/admin/v1/apps -H "authorization: Bearer ${marquee.adminToken}" \\
         -H 'content-type: application/json' -d '{"name":"my app","redirectUris":["http://localhost:3000/callback"]}'
Press Ctrl+C to stop.
`);
