import type { INestApplicationContext } from '@nestjs/common';
import { CommandRunnerService } from 'nest-commander';

/** The part of commander's `Command` used here (nest-commander bundles its own commander). */
interface CommandNode {
  readonly commands: readonly CommandNode[];
  readonly args: string[];
  readonly registeredArguments: readonly unknown[];
  readonly parent: CommandNode | null;
  name(): string;
  action(handler: () => void): unknown;
  hook(event: 'preAction', listener: (self: CommandNode, action: CommandNode) => void): unknown;
  /** Commander's own "unknown command" error, with its "(Did you mean …?)" suggestion. */
  unknownCommand(): never;
  allowUnknownOption(): unknown;
  exitOverride(handler: (error: Error) => never): unknown;
  error(message: string, options?: { code?: string; exitCode?: number }): never;
  help(context: { error: boolean }): never;
}

/** A commander error: its message is already printed; the process exits with its code. */
export interface CommanderExit extends Error {
  code: string;
  exitCode: number;
}

export function isCommanderExit(error: unknown): error is CommanderExit {
  const { code, exitCode } = (error ?? {}) as { code?: unknown; exitCode?: unknown };
  return typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number';
}

/**
 * Makes every usage error end the command with a non-zero code, by throwing instead of calling
 * `process.exit` (so the CLI still stops the database it started):
 * - a group given an unknown subcommand (`tenant bogus`) or none (`tenant`) exits 1 with the
 *   error or its help on stderr; nest-commander ran the group's own `run()`, which printed
 *   the help on stdout and exited 0;
 * - unknown options and missing arguments of any command, at any depth (nest-commander set
 *   this on the root command only);
 * - arguments a command does not take: `product create … --price 1 [--stock 5]` (a usage line
 *   pasted with its brackets) ignored `[--stock` and `5]` and exited 0 without the stock.
 */
export function strictUsage(app: INestApplicationContext): void {
  // nest-commander keeps its commander program in a private field.
  const runner: { commander: CommandNode } = app.get(CommandRunnerService);
  const rethrow = (error: Error): never => {
    throw error;
  };
  const visit = (command: CommandNode): void => {
    command.exitOverride(rethrow);
    if (command.commands.length > 0) {
      // Options belong to the subcommand: `tenant lsit --json` is about `lsit`, not `--json`.
      command.allowUnknownOption();
      command.action(() => {
        // Operands come first in `args`: the first is the command asked for.
        const [asked] = command.args;
        if (asked !== undefined && !asked.startsWith('-')) command.unknownCommand();
        command.help({ error: true });
      });
    }
    for (const sub of command.commands) visit(sub);
  };
  visit(runner.commander);
  // Hooks of the root run before the action of any command under it.
  runner.commander.hook('preAction', (_root, action) => {
    if (action.commands.length === 0) refuseExcessArguments(action);
  });
}

function refuseExcessArguments(command: CommandNode): void {
  const excess = command.args.slice(command.registeredArguments.length);
  if (excess.length === 0) return;
  const brackets = excess.some((arg) => /[[\]]/.test(arg))
    ? '; in a usage line, [ ] marks an optional part and is not typed'
    : '';
  const s = excess.length === 1 ? '' : 's';
  command.error(
    `error: unexpected argument${s} ${excess.map((a) => `'${a}'`).join(' ')} for ` +
      `'${fullName(command)}' (it takes options only${brackets})`,
    { code: 'commander.excessArguments' },
  );
}

/** `product create`: the command's name under the program's. */
function fullName(command: CommandNode): string {
  const names: string[] = [];
  for (let c: CommandNode | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
