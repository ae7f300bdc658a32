import { CommandRunner, Option } from 'nest-commander';
import { AppError } from '../common/errors/app-error.js';

export interface JsonOption {
  json?: boolean;
}

/** What a command hands back: the object printed with --json, and the human text otherwise. */
export interface CommandOutput {
  json: Record<string, unknown>;
  text: string;
}

/**
 * Base of every admin command: `--json` prints exactly one JSON object on stdout; errors
 * go to stderr (and, with --json, as one `{error, error_description}` object on stdout) and
 * exit non-zero.
 */
export abstract class AdminCommand<O extends JsonOption = JsonOption> extends CommandRunner {
  protected abstract execute(options: O, params: string[]): Promise<CommandOutput>;

  async run(params: string[], options: O): Promise<void> {
    try {
      const output = await this.execute(options, params);
      process.stdout.write(options.json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`);
    } catch (error) {
      const code = error instanceof AppError ? error.code : 'internal_error';
      const message = error instanceof Error ? error.message : String(error);
      if (options.json)
        process.stdout.write(`${JSON.stringify({ error: code, error_description: message })}\n`);
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = error instanceof AppError ? 1 : 2;
    }
  }

  @Option({ flags: '--json', description: 'print one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }
}

/** Parses a positive integer option such as --tenant, or fails with a message naming it. */
export function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new AppError('validation_failed', `--${name} must be a positive integer, got "${value}"`);
  }
  return n;
}

/** Parses a non-negative integer option such as --customers, or fails naming it. */
export function nonNegativeInt(name: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new AppError('validation_failed', `--${name} must be an integer ≥ 0, got "${value}"`);
  }
  return n;
}

/** nest-commander does not enforce `required`; commands call this first. */
export function requireOptions<T extends object>(options: T, names: Array<keyof T & string>): void {
  const missing = names.filter((n) => options[n] === undefined);
  if (missing.length > 0) {
    throw new AppError(
      'validation_failed',
      `missing option(s): ${missing.map((m) => `--${m}`).join(', ')}`,
    );
  }
}
