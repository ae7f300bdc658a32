import type { EntityManager } from 'typeorm';
import { execute } from './execute.js';

/**
 * What every path offers a repository: rows, the first row, or the count of rows written.
 * `prepared` for the hot paths' fixed texts (see execute.ts). Subclasses decide what a
 * statement must carry before it runs.
 */
export abstract class SqlRunner {
  constructor(
    private readonly manager: EntityManager,
    /** Throws once the unit of work this runner belongs to has ended. */
    private readonly assertOpen: () => void,
  ) {}

  async rows<T>(text: string, values: readonly unknown[] = [], prepared = false): Promise<T[]> {
    return (await this.run<T>(text, values, prepared)).rows;
  }

  async first<T>(text: string, values: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.rows<T>(text, values))[0];
  }

  /** Rows written (or matched) by an INSERT, UPDATE or DELETE. */
  async count(text: string, values: readonly unknown[] = []): Promise<number> {
    return (await this.run(text, values, false)).rowCount;
  }

  private run<T>(text: string, values: readonly unknown[], prepared: boolean) {
    this.assertOpen();
    const statement = this.statement(text, values, prepared);
    return execute<T>(this.manager, statement.text, statement.values, prepared);
  }

  /** `prepared`: `text` is one of the code's fixed texts (a subclass may keep what it derives). */
  protected abstract statement(
    text: string,
    values: readonly unknown[],
    prepared: boolean,
  ): { text: string; values: readonly unknown[] };
}
