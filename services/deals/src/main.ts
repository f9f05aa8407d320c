// Process entry of deals. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { dealsService } from './index.js';

await runService(dealsService);
