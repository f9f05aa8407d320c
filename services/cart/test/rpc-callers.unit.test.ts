import { describeRpcCallers } from '@marquee/platform/testing';
import { cartService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of cart.
describeRpcCallers(cartService, { rpcs: 33, env: { GRPC_ADDR_3P_CONNECTOR: '127.0.0.1:1' } });
