// The framework floor (BENCH_FLOOR=1): NestJS 12 on Fastify with one guarded route,
// GET /v1/orders/:id, its id through ParseIntPipe, the reference's statement and JSON. No
// logging, metrics, hooks, rate limits or token checks (the guard only looks for a Bearer
// header). Measured beside the service and the reference on get by id, it shows what the
// framework itself costs, and so how much of the service's cost is its own per-request work.
//
// Environment: PORT, DATABASE_URL, TENANT_ID, REFERENCE_PREPARED (as the reference's). Plain JavaScript, so decorators are applied
// by hand. GET /__bench/eld answers the event-loop delay since the last call, as the
// reference does.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  Controller,
  Get,
  Module,
  NotFoundException,
  Param,
  ParseIntPipe,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import pg from 'pg';
import { orderJson } from './reference-json.mjs';
import { ORDER_BY_ID } from './reference-sql.mjs';

const { env } = process;
const TENANT = Number(env.TENANT_ID);
// Named (planned once per connection) unless the reference runs unnamed too.
const PREPARED = env.REFERENCE_PREPARED === '1';
pg.defaults.parseInt8 = true;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 10 });
pool.on('error', () => {});
const eld = monitorEventLoopDelay({ resolution: 10 });
eld.enable();

class BearerPresent {
  canActivate(context) {
    const http = context.switchToHttp();
    http.getResponse().header('x-request-id', randomUUID());
    const authorization = http.getRequest().headers.authorization;
    return typeof authorization === 'string' && authorization.startsWith('Bearer ');
  }
}

class OrdersController {
  async get(id) {
    const { rows } = await pool.query(
      PREPARED
        ? { name: 'ORDER_BY_ID', text: ORDER_BY_ID, values: [TENANT, id] }
        : { text: ORDER_BY_ID, values: [TENANT, id] },
    );
    if (rows.length === 0) throw new NotFoundException();
    return orderJson(rows[0], rows[0].items ?? []);
  }
}
const get = Object.getOwnPropertyDescriptor(OrdersController.prototype, 'get');
Reflect.defineMetadata('design:paramtypes', [Number], OrdersController.prototype, 'get');
Param('id', ParseIntPipe)(OrdersController.prototype, 'get', 0);
UseGuards(BearerPresent)(OrdersController.prototype, 'get', get);
Get(':id')(OrdersController.prototype, 'get', get);
Controller('v1/orders')(OrdersController);

class FloorModule {}
Module({ controllers: [OrdersController] })(FloorModule);

const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
const fastify = app.getHttpAdapter().getInstance();
fastify.get('/health/ready', (request, reply) => reply.send({ status: 'ok' }));
fastify.get('/__bench/eld', (request, reply) => {
  const body = { p99_ms: eld.percentile(99) / 1e6, max_ms: eld.max / 1e6 };
  eld.reset();
  reply.send(body);
});
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
await app.listen(Number(env.PORT), '127.0.0.1');
console.log(`floor listening on ${env.PORT}`);
