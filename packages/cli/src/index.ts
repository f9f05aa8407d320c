export { runCli, type CliIo } from './cli.js';
export {
  AdminApiError,
  call,
  createAdminClient,
  UsageError,
  type Command,
  type CommandContext,
} from './command.js';
export { commands } from './commands/index.js';
