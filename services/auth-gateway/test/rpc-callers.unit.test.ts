import { describeRpcCallers } from '@marquee/platform/testing';
import { authGatewayService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of auth-gateway.
describeRpcCallers(authGatewayService, { rpcs: 13 });
