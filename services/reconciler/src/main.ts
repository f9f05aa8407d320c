// Process entry of reconciler. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { reconcilerService } from './index.js';

await runService(reconcilerService);
