import { describeRpcCallers } from '@marquee/platform/testing';
import { secureEntryService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of secure-entry.
describeRpcCallers(secureEntryService, { rpcs: 7 });
