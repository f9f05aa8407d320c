import { describeRpcCallers } from '@marquee/platform/testing';
import { catalogIndexerService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of catalog-indexer.
describeRpcCallers(catalogIndexerService, { rpcs: 10 });
