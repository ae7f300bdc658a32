import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Transactions } from './transactions.js';

/** Name of the DataSource whose pool serves background work only. */
export const BACKGROUND_DATA_SOURCE = 'background';

/**
 * Units of work of background loops (job handlers, webhook dispatch and delivery, counter
 * compaction, maintenance, the rate-limit sync, the credentials reload) on a pool of their
 * own: a flood of requests never makes them wait for a connection, and they never take one
 * a request needs. No statement deadline (a backlog may take long) beyond the idle-in-
 * transaction one every pool has. Same guarantees as Transactions; the two never share a unit.
 */
@Injectable()
export class BackgroundTransactions extends Transactions {
  constructor(@InjectDataSource(BACKGROUND_DATA_SOURCE) dataSource: DataSource) {
    super(dataSource);
  }
}
