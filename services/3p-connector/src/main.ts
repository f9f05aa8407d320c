// Process entry of 3p-connector. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { threePConnectorService } from './index.js';

await runService(threePConnectorService);
