import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppCtx, Authenticated } from '../auth/authenticated.decorator.js';
import { appScope } from '../auth/grants.js';
import type { AppContext } from '../auth/request-context.js';
import { ApiErrors } from '../common/errors/api-error.decorator.js';
import { ID_PARAM, IdParam, idParam } from '../common/http/id-param.decorator.js';
import { PageQuery, type Page } from '../common/pagination.js';
import {
  CreateWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { validated } from '../common/http/validated.js';

const NOT_FOUND = "unknown endpoint, or another app's";

@ApiTags('webhooks')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @Authenticated(appScope('webhooks:write'))
  @ApiOperation({
    summary: 'Create a webhook endpoint; its signing secret is shown only in this answer',
    description:
      'Each delivery is a `POST` of one event (the schemas `*Event`, as in `GET /v1/events`) with the Standard Webhooks headers `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded part of the secret after `whsec_`; two signatures, space-separated, during a rotation). Success is a 2xx within 10 s; otherwise retried per WEBHOOK_RETRY_SCHEDULE with the same `webhook-id`. Redirects are not followed. An event type is delivered only while the app’s approved scopes entitle it: `orders:read` or `events:read` for `order.*`, `marketplace:import` or `events:read` for `marketplace_import.failed`, `customer:auth`, `customer:manage` or `events:read` for `customer.created`; the app’s own events need none. At most 20 endpoints per app. Needs an app token with `webhooks:write`.',
  })
  @ApiCreatedResponse({
    type: WebhookEndpointWithSecretDto,
    headers: {
      Location: { description: '/v1/webhook-endpoints/{id}', schema: { type: 'string' } },
    },
  })
  @ApiErrors({
    validation_failed:
      'url refused (scheme, credentials, private address), unknown event type, or the app has 20 endpoints already',
  })
  async create(
    @AppCtx() ctx: AppContext,
    @Body(validated) dto: CreateWebhookEndpointDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretDto> {
    const created = await this.endpoints.create(ctx, dto);
    void reply
      .header('location', `/v1/webhook-endpoints/${created.id}`)
      .header('cache-control', 'no-store');
    return created;
  }

  @Get()
  @Authenticated(appScope('webhooks:read'))
  @ApiOperation({
    summary: "The app's webhook endpoints (never their secrets)",
    description:
      'Every endpoint the calling app created (at most 20), in ascending `id` order, without ' +
      'paging; other apps’ endpoints are not shown. Needs an app token with `webhooks:read`.',
  })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@AppCtx() ctx: AppContext): Promise<WebhookEndpointListDto> {
    return { data: await this.endpoints.list(ctx) };
  }

  @Get(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('webhooks:read'))
  @ApiOperation({
    summary: 'One webhook endpoint (never its secret)',
    description:
      'An endpoint the calling app created; another app’s endpoint is 404. Needs an app token ' +
      'with `webhooks:read`.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors({ validation_failed: 'id is not a positive integer', not_found: NOT_FOUND })
  get(@AppCtx() ctx: AppContext, @IdParam() id: number): Promise<WebhookEndpointDto> {
    return this.endpoints.get(ctx, id);
  }

  @Patch(':id')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('webhooks:write'))
  @ApiOperation({
    summary: 'Change the url, the event types, or pause/resume (active)',
    description:
      'Changes only the fields sent (`url` is checked as on creation; `description: null` clears ' +
      'it); `active: true` or a new `url` also clears the failure streak. While paused, new ' +
      'events make no deliveries to the endpoint (not even after resuming) and pending ones end ' +
      '`failed` at their next attempt. Needs an app token with `webhooks:write`.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors({
    validation_failed: 'a field is malformed or the url is refused',
    not_found: NOT_FOUND,
  })
  update(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Body(validated) dto: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    return this.endpoints.update(ctx, id, dto);
  }

  @Delete(':id')
  @ApiParam(ID_PARAM)
  @HttpCode(204)
  @Authenticated(appScope('webhooks:write'))
  @ApiOperation({
    summary: 'Delete the endpoint and its delivery log',
    description:
      'Removes an endpoint of the calling app for good, with its deliveries; nothing more is ' +
      'sent to it. Needs an app token with `webhooks:write`.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ validation_failed: 'id is not a positive integer', not_found: NOT_FOUND })
  async remove(@AppCtx() ctx: AppContext, @IdParam() id: number): Promise<void> {
    await this.endpoints.remove(ctx, id);
  }

  @Post(':id/rotate-secret')
  @ApiParam(ID_PARAM)
  @HttpCode(200)
  @Authenticated(appScope('webhooks:write'))
  @ApiOperation({
    summary: 'A new signing secret; the old one keeps signing beside it for 24 hours',
    description:
      'During the overlap every delivery carries two signatures in `webhook-signature`, one per secret, so receivers can switch at their pace. The answer is the endpoint with the new `secret`, shown only here. Needs an app token with `webhooks:write`.',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrors({ validation_failed: 'id is not a positive integer', not_found: NOT_FOUND })
  rotateSecret(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretDto> {
    void reply.header('cache-control', 'no-store');
    return this.endpoints.rotateSecret(ctx, id);
  }

  @Get(':id/deliveries')
  @ApiParam(ID_PARAM)
  @Authenticated(appScope('webhooks:read'))
  @ApiOperation({
    summary: "The endpoint's delivery log, newest first",
    description:
      'One delivery per event sent to the endpoint, by `page` and `limit` with an exact ' +
      '`meta.total`: its state, attempts, last status code or error, and next attempt. ' +
      'Deliveries go with their events after the retention. Needs an app token with `webhooks:read`.',
  })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  @ApiErrors({ validation_failed: 'id, page or limit malformed', not_found: NOT_FOUND })
  deliveries(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @Query(validated) query: PageQuery,
  ): Promise<Page<WebhookDeliveryDto>> {
    return this.endpoints.deliveries(ctx, id, query);
  }

  @Post(':id/deliveries/:delivery_id/redeliver')
  @ApiParam(ID_PARAM)
  @ApiParam(idParam('delivery_id'))
  @HttpCode(202)
  @Authenticated(appScope('webhooks:write'))
  @ApiOperation({
    summary: 'Send the delivery again (same `webhook-id`), now and with the retry schedule after',
    description:
      'Puts a `succeeded` or `failed` delivery back to `pending` and due now: one new attempt. ' +
      'Its attempt count goes on, so retries use only what is left of WEBHOOK_RETRY_SCHEDULE (a ' +
      'delivery that used it up gets this one attempt), and an inactive endpoint fails it ' +
      'without sending. A delivery that is still `pending` (waiting for its first attempt, a ' +
      'retry or a free delivery slot, or with an attempt in flight) already has its next ' +
      'attempt coming: it is left as it is and the answer is its current state, so any number ' +
      'of calls adds no attempt and never puts two attempts of a delivery in flight. ' +
      'Attempts are sent one at a time per delivery, at most WEBHOOK_ENDPOINT_CONCURRENCY ' +
      'at once per endpoint and WEBHOOK_TENANT_CONCURRENCY per tenant. Needs an app token ' +
      'with `webhooks:write`.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiErrors({
    validation_failed: 'id or delivery_id is not a positive integer',
    not_found: "unknown endpoint or delivery, or another app's",
  })
  redeliver(
    @AppCtx() ctx: AppContext,
    @IdParam() id: number,
    @IdParam('delivery_id') deliveryId: number,
  ): Promise<WebhookDeliveryDto> {
    return this.endpoints.redeliver(ctx, id, deliveryId);
  }
}
