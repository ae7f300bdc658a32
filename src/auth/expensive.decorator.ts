import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { from, type Observable, finalize, switchMap } from 'rxjs';
import { ExpensiveRequests } from '../common/rate-limit/expensive-requests.js';
import type { RequestContext } from './request-context.js';

/** Takes a place at the gate before the handler runs and gives it back when it is done. */
@Injectable()
export class ExpensiveRequestGate implements NestInterceptor {
  constructor(private readonly requests: ExpensiveRequests) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = execution
      .switchToHttp()
      .getRequest<FastifyRequest & { user: RequestContext }>().user;
    return from(this.requests.gate.enter(ctx)).pipe(
      switchMap((leave) => next.handle().pipe(finalize(leave))),
    );
  }
}

/**
 * A route whose statements may be expensive (lists, feeds): it runs through the per-tenant
 * and per-app concurrency caps (ExpensiveRequests). After @Authenticated, which sets the caller.
 */
export function Expensive(): MethodDecorator {
  // Its 429 is documented with the token rate's, by @Authenticated.
  return applyDecorators(UseInterceptors(ExpensiveRequestGate));
}
