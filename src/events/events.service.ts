import { Injectable } from '@nestjs/common';
import type { AppContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import type { FeedQuery } from './dto/event.dto.js';
import { eventPageJson, fitEventPage, PAGE_BODY_LIMIT } from './event-page.js';
import { EventsRepository } from './events.repository.js';
import {
  decodeFeedCursor,
  encodeFeedCursor,
  FEED_START,
  type FeedPosition,
} from './feed-cursor.js';

@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly replicas: ReadReplicas,
    private readonly expensive: ExpensiveRequests,
  ) {}

  /**
   * One page of the change feed. The retention check comes after the read: a purge that
   * committed before the read is then always noticed (410), never served as a silent gap.
   * Within the caller's caps on expensive requests. The page's JSON text (event-page.ts).
   */
  feed(ctx: AppContext, query: FeedQuery): Promise<string> {
    return this.expensive.run(ctx, () => this.readFeed(ctx, query), PAGE_BODY_LIMIT);
  }

  private async readFeed(ctx: AppContext, query: FeedQuery): Promise<string> {
    const position = query.after === undefined ? FEED_START : decodeFeedCursor(query.after);
    if (!position) {
      throw new AppError('validation_failed', 'after is not a cursor of this feed', {
        details: [{ field: 'after', message: 'must be a next_cursor from this feed' }],
      });
    }
    // A replica may serve the page: its horizon is taken there, where the page is read
    // (docs/SCALING.md#the-feed-across-replicas). The retention check reads the same server.
    const { horizon, rows, purged } = await this.replicas.read(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const page = await this.events.feed(
        tenant,
        ctx.appId,
        position,
        query.limit + 1,
        query.types,
      );
      const gone = query.after !== undefined && (await this.events.purgedAfter(tenant, position));
      return { ...page, purged: gone };
    });
    if (purged) {
      throw new AppError(
        'cursor_expired',
        'events after this cursor are past the retention period; start again without `after` and reconcile with GET /v1/orders?updated_after=',
      );
    }
    const { served, hasMore } = fitEventPage(rows, query.limit);
    // A page cut short continues after its last event; otherwise everything visible was read.
    const next = hasMore ? served.at(-1)!.row : laterOf(position, { txid: horizon, seq: 0 });
    return eventPageJson(
      served.map((event) => event.json),
      encodeFeedCursor(next),
      hasMore,
    );
  }
}

function laterOf(a: FeedPosition, b: FeedPosition): FeedPosition {
  const [ta, tb] = [BigInt(a.txid), BigInt(b.txid)];
  return ta > tb || (ta === tb && a.seq >= b.seq) ? a : b;
}
