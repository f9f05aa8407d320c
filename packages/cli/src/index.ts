export { runCli, type CliIo } from './cli.js';
export {
  AdminApiError,
  createAdminClient,
  UsageError,
  type AdminClient,
  type Command,
  type CommandContext,
} from './command.js';
export { commands } from './commands/index.js';
