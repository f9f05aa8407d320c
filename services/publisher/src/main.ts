// Process entry of publisher. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { publisherService } from './index.js';

await runService(publisherService);
