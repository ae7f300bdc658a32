import type { INestApplicationContext } from '@nestjs/common';
import { CommandRunnerService } from 'nest-commander';

/** The part of commander's `Command` used here (nest-commander bundles its own commander). */
interface CommandNode {
  readonly commands: readonly CommandNode[];
  readonly args: string[];
  action(handler: () => void): unknown;
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
 *   this on the root command only).
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
        const unknown = command.args.find((arg) => !arg.startsWith('-'));
        if (unknown !== undefined) {
          command.error(`error: unknown command '${unknown}'`, {
            code: 'commander.unknownCommand',
          });
        }
        command.help({ error: true });
      });
    }
    for (const sub of command.commands) visit(sub);
  };
  visit(runner.commander);
}
