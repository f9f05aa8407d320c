import { describeRpcCallers } from '@marquee/platform/testing';
import { publisherService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of publisher.
describeRpcCallers(publisherService, { rpcs: 5 });
