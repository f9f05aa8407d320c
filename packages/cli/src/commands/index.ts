import type { Command } from '../command.js';
import { appsAccess, appsApprove, appsCreate, appsGet, appsUnapprove, appsUpdate } from './apps.js';
import { dealsCommands } from './deals.js';
import { fansCreate, fansDelete, fansRevokeGrant } from './fans.js';
import { gatesCommands } from './gates.js';
import { onSaleCommands } from './onsale.js';
import { ordersCommands } from './orders.js';
import { partnersCommands } from './partners.js';
import { reconciliationCommands } from './reconciliation.js';
import { resaleCommands } from './resale.js';

/**
 * Every `marquee` command. To add yours (e.g. `deals create`), write `src/commands/<area>.ts`
 * exporting `Command` objects and append them here.
 */
export const commands: readonly Command[] = [
  appsCreate,
  appsUpdate,
  appsApprove,
  appsUnapprove,
  appsAccess,
  appsGet,
  fansCreate,
  fansRevokeGrant,
  fansDelete,
  ...dealsCommands,
  ...partnersCommands,
  ...reconciliationCommands,
  ...ordersCommands,
  ...resaleCommands,
  ...gatesCommands,
  ...onSaleCommands,
];
