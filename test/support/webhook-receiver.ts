import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the request had arrived, and when its exchange ended. */
  at: number;
  closedAt?: number;
}

/** The most requests among `hooks` that were open at one time (answered, or still open). */
export function peakInFlight(hooks: ReceivedHook[]): number {
  const edges = hooks.flatMap((h) => [
    { t: h.at, d: 1 },
    { t: h.closedAt ?? Infinity, d: -1 },
  ]);
  // Closings first at a tie: a request answered as the next one arrives did not overlap it.
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let open = 0;
  let peak = 0;
  for (const edge of edges) peak = Math.max(peak, (open += edge.d));
  return peak;
}

/**
 * A local HTTP receiver on 127.0.0.1 (tests send traffic to loopback only). `respond`
 * decides each answer; it may hold a request until a promise settles.
 */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  respond: (hook: ReceivedHook) => number | Promise<number> = () => 200;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook: ReceivedHook = {
        path: req.url ?? '',
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
        at: performance.now(),
      };
      res.on('close', () => (hook.closedAt = performance.now()));
      this.received.push(hook);
      void Promise.resolve(this.respond(hook)).then((status) => res.writeHead(status).end('ok'));
    });
  });

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Deliveries to one path (each endpoint gets its own path). */
  at(path: string): ReceivedHook[] {
    return this.received.filter((h) => h.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
