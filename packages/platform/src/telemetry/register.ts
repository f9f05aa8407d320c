/**
 * Loaded with `node --import @marquee/platform/telemetry/register dist/main.js`, so that tracing is
 * set up before any application module is evaluated: an SDK started after the modules it should
 * instrument cannot patch them.
 *
 * ESM imports are only patchable through a loader hook. This registers import-in-the-middle's hook
 * with a message channel, so that the loader intercepts only the modules an instrumentation asked
 * for (http, @grpc/grpc-js, mongodb, pino) instead of wrapping every module of the application.
 * `createAddHookMessageChannel` must come from the same import-in-the-middle copy the
 * instrumentations use (pnpm keeps one, pinned through the catalog).
 *
 * On Node versions where import-in-the-middle can run synchronously (`supportsSyncHooks`: 24.11.1
 * and later 24s, 22.22.3 and later 22s) the hook runs in the application's thread through
 * `module.registerHooks`. `module.register` runs it on a loader thread instead, and every module
 * the program imports, hooked or not, then costs a round trip to that thread: the edge took
 * 1.7–1.9 s from start to its modules loaded that way, 0.9–1.1 s in-thread (0.6 s with no hook),
 * and held about 30 MB more (the loader thread's isolate). The in-thread hook gets the same
 * options, the message port included, so it intercepts the same modules. It applies to this thread
 * only; the services start no worker threads.
 *
 * The SDK is imported dynamically, after the hook is in place, so that nothing it pulls in is
 * evaluated before interception starts. The service name comes from `OTEL_SERVICE_NAME`, else
 * `SERVICE_NAME`. With `OTEL_SDK_DISABLED=true` nothing is registered at all.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import {
  register as registerInThread,
  supportsSyncHooks,
  type RegisterHooksOptions,
} from 'import-in-the-middle/register-hooks.mjs';

const disabled = (process.env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';

// Worker threads inherit `--import`; only the main thread starts the SDK and registers the hook.
if (!disabled && isMainThread) {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  if (supportsSyncHooks()) {
    // The options the loader thread would get, port included: in this thread the instrumentations'
    // `Hook` calls reach the hook over the same channel and are acknowledged the same way.
    registerInThread(registerOptions.data as RegisterHooksOptions);
  } else {
    register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  }

  const { startTelemetry } = await import('./start-telemetry.js');
  // service.version and other resource attributes come from OTEL_RESOURCE_ATTRIBUTES (set by the
  // deployment, e.g. from the image tag); npm_package_version would name whichever package ran
  // the script.
  startTelemetry({
    serviceName:
      process.env.OTEL_SERVICE_NAME ?? process.env.SERVICE_NAME ?? 'unknown_service:node',
  });

  // The instrumentations told the loader which modules to intercept; wait until it has them, or
  // the application's first imports could slip through unpatched.
  await waitForAllMessagesAcknowledged();
}
