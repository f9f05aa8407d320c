import { describeRpcCallers } from '@marquee/platform/testing';
import { reconcilerService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of reconciler.
describeRpcCallers(reconcilerService, { rpcs: 4, env: { GRPC_ADDR_3P_CONNECTOR: '127.0.0.1:1' } });
