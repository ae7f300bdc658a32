import { Catch, type ArgumentsHost, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response.js';

/** The one place where errors become HTTP responses (docs/BEHAVIOUR.md#errors). */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const response = toErrorResponse(error, request.id);
    if (response.unexpected) {
      this.logger.error(
        { err: error, reqId: request.id, method: request.method, url: request.routeOptions.url },
        'unexpected error',
      );
    }
    if (reply.sent) return;
    void reply
      .status(response.status)
      .headers(response.headers)
      .header('content-type', 'application/json; charset=utf-8')
      .send(response.body);
  }
}
