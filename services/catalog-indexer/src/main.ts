// Process entry of catalog-indexer. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { catalogIndexerService } from './index.js';

await runService(catalogIndexerService);
