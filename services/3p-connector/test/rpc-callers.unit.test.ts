import { describeRpcCallers } from '@marquee/platform/testing';
import { threePConnectorService } from '../src/index.js';

// docs/rpc-callers.md: who may call which RPC of 3p-connector.
describeRpcCallers(threePConnectorService, { rpcs: 13 });
