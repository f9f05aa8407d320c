import { describeRpcCallers } from '@marquee/platform/testing';
import { dealsService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of deals.
describeRpcCallers(dealsService, { rpcs: 5, env: { GRPC_ADDR_CATALOG_INDEXER: '127.0.0.1:1' } });
