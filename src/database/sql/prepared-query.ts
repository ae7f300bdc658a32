/* oxlint-disable no-underscore-dangle -- pg's Query and Result keep these fields as internals */
import pg from 'pg';

/** What node-postgres' Result derives from a RowDescription (pg/lib/result.js addFields). */
interface RowLayout {
  fields: unknown[];
  parsers: unknown[];
  emptyRow: object;
}

/** The parts of pg's Query and Result this class builds on (untyped internals of pg 8). */
interface QueryInternals {
  name: string;
  callback?: unknown;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown[]; _prebuiltEmptyResultObject: object };
}

interface WireConnection {
  parsedStatements: Record<string, string | undefined>;
  bind(config: object): void;
  execute(config: object): void;
  sync(): void;
}

/** pg's own mapping of JavaScript values to wire text (pg/lib/utils.js). */
const pgUtils = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils;
const prepareValue = (value: unknown) => pgUtils.prepareValue(value);

/**
 * Row layouts by connection, then statement name: what the first run's Describe answered,
 * with the type parsers chosen then (a `setTypeParser` made later does not reach a layout
 * already kept; the service sets its parsers once, at start-up).
 */
const layouts = new WeakMap<object, Map<string, RowLayout>>();

/**
 * A named prepared statement that asks the server to describe its rows once per connection.
 * node-postgres sends Describe on every run, and parses and re-derives the 20-odd column
 * descriptions of each answer (about 6 KB of garbage per get by id, and its CPU). The layout
 * of a prepared statement cannot change under it (PostgreSQL refuses with "cached plan must
 * not change result type"), so the first run's is kept for the connection and later runs send
 * Bind, Execute and Sync only. Everything else (errors, read timeouts, callbacks) is pg's own
 * Query.
 */
export class PreparedQuery extends pg.Query {
  /** The connection a run that asked for a Describe went out on. */
  private describedOn?: WireConnection;

  constructor(name: string, text: string, values: unknown[]) {
    // Text and values, not a config object: pg copies an object config property by
    // property through its descriptors (~3 µs a query), a text it wraps as it is.
    super(text, values);
    (this as unknown as QueryInternals).name = name;
  }

  prepare(connection: WireConnection): void {
    const self = this as unknown as QueryInternals;
    const layout =
      connection.parsedStatements[self.name] === undefined
        ? undefined
        : layouts.get(connection)?.get(self.name);
    if (layout === undefined) {
      this.describedOn = connection;
      (pg.Query.prototype as unknown as { prepare(c: WireConnection): void }).prepare.call(
        this,
        connection,
      );
      return;
    }
    const result = self._result;
    result.fields = layout.fields;
    result._parsers = layout.parsers;
    result._prebuiltEmptyResultObject = layout.emptyRow;
    self._accumulateRows = true;
    try {
      connection.bind({
        portal: '',
        statement: self.name,
        values: (this as unknown as { values: unknown[] }).values,
        // The format the kept layout was described in (and its parsers chosen for).
        binary: (this as unknown as { binary?: boolean }).binary,
        valueMapper: prepareValue,
      });
    } catch (error) {
      // As pg's prepare: a value that cannot be sent fails the query; the connection syncs.
      connection.sync();
      (this as unknown as { handleError(e: unknown, c: unknown): void }).handleError(
        error,
        connection,
      );
      return;
    }
    connection.execute({ portal: '' });
    connection.sync();
  }

  handleRowDescription(message: unknown): void {
    (
      pg.Query.prototype as unknown as { handleRowDescription(m: unknown): void }
    ).handleRowDescription.call(this, message);
    const connection = this.describedOn;
    if (connection === undefined) return;
    const self = this as unknown as QueryInternals;
    let byName = layouts.get(connection);
    if (byName === undefined) {
      byName = new Map();
      layouts.set(connection, byName);
    }
    const result = self._result;
    byName.set(self.name, {
      fields: result.fields,
      parsers: result._parsers,
      emptyRow: result._prebuiltEmptyResultObject,
    });
  }
}
