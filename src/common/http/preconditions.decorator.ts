import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, noneMatchHits, parseIfMatch, type VersionPrecondition } from './entity-tags.js';

/** The request's `If-Match`, parsed (entity-tags.ts); undefined when absent, 400 when malformed. */
export const IfMatch = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): VersionPrecondition | undefined => {
    const header = execution.switchToHttp().getRequest<FastifyRequest>().headers['if-match'];
    return parseIfMatch(Array.isArray(header) ? header.join(', ') : header);
  },
);

/** OpenAPI: the route takes `If-Match`. */
export function ApiIfMatch(what: string): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: `"<version>" (the \`ETag\`) or *: written only while ${what}'s version is one of those named, else 412 \`precondition_failed\` and nothing is written`,
    }),
  );
}

/** Sets the `ETag` of a response that carries one versioned resource; returns the resource. */
export function withETag<T extends { version: number }>(reply: FastifyReply, resource: T): T {
  void reply.header('etag', etagOf(resource.version));
  return resource;
}

/**
 * A read of one versioned resource: its `ETag`, and 304 without a body when `If-None-Match`
 * names the current version (undefined is then the body).
 */
export function conditionalRead<T extends { version: number }>(
  reply: FastifyReply,
  resource: T,
  ifNoneMatch: string | undefined,
): T | undefined {
  // Parsed first: a malformed header is a 400 that carries no ETag.
  const hit = noneMatchHits(ifNoneMatch, resource.version);
  withETag(reply, resource);
  if (!hit) return resource;
  void reply.code(304);
  return undefined;
}
