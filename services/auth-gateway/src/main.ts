// Process entry of auth-gateway. Telemetry is already running: the start script loads
// @marquee/platform/telemetry/register with `node --import` before this module.
import { runService } from '@marquee/platform/service';
import { authGatewayService } from './index.js';

await runService(authGatewayService);
