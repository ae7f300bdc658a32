import type { AppContext } from '../auth/request-context.js';

/** How an app is named in an order's status history. */
export function actorOf(ctx: AppContext): string {
  return `app:${ctx.clientId}`;
}
