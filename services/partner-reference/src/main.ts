// Process entry of partner-reference. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { partnerReferenceService } from './index.js';

await runService(partnerReferenceService);
