import type { FastifyReply } from 'fastify';

/**
 * Marks the reply's body as JSON that is already text (a page built from stored JSON,
 * src/events/event-page.ts): Fastify sends a string with a content type as it is, never
 * parsing or serializing it again. Returns the text for the handler to return.
 */
export function jsonText(reply: FastifyReply, text: string): string {
  reply.type('application/json; charset=utf-8');
  return text;
}
