import { Injectable } from '@nestjs/common';
import type { AppContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { offsetOf, toPage, type Page, type PageQuery } from '../common/pagination.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { JobQueue } from '../queue/job-queue.service.js';
import type {
  CreateWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveryDto,
  WebhookEndpointDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto.js';
import { SecretBox } from './secret-box.js';
import { deliveryJob } from './webhook-delivery-job.js';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.service.js';
import { toDeliveryDto, toEndpointDto } from './webhook-endpoint.mapper.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { newSigningSecret } from './webhook-signature.js';
import { flagsThatAllow, targetRefusal, type TargetPolicy } from './webhook-target.js';

/** An app has at most this many endpoints (docs/BEHAVIOUR.md#webhooks). */
export const MAX_ENDPOINTS_PER_APP = 20;
/** After a rotation the old secret keeps signing this long, beside the new one. */
export const SECRET_OVERLAP_SECONDS = 24 * 3600;

/** Endpoints belong to the app that made them; any other app's are 404. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly transactions: Transactions,
    private readonly box: SecretBox,
    private readonly queue: JobQueue,
    private readonly config: AppConfig,
    private readonly worker: WebhookDeliveryWorker,
    private readonly expensive: ExpensiveRequests,
  ) {}

  async create(
    ctx: AppContext,
    dto: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    await this.checkUrl(dto.url);
    const secret = newSigningSecret();
    const row = await this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      if ((await this.endpoints.lockApp(tenant, ctx.appId)) >= MAX_ENDPOINTS_PER_APP) {
        throw new AppError(
          'validation_failed',
          `an app may have at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints`,
          {
            details: [
              { field: 'url', message: `at most ${MAX_ENDPOINTS_PER_APP} endpoints per app` },
            ],
          },
        );
      }
      return this.endpoints.insert(tenant, ctx.appId, {
        url: dto.url,
        eventTypes: dto.event_types,
        description: dto.description ?? null,
        secret: this.box.seal(secret),
      });
    });
    return Object.assign(toEndpointDto(row), { secret });
  }

  async list(ctx: AppContext): Promise<WebhookEndpointDto[]> {
    const rows = await this.endpoints.list(this.transactions.db.tenant(ctx.tenantId), ctx.appId);
    return rows.map(toEndpointDto);
  }

  async get(ctx: AppContext, id: number): Promise<WebhookEndpointDto> {
    const row = await this.endpoints.find(this.transactions.db.tenant(ctx.tenantId), ctx.appId, id);
    if (!row) throw notFound(id);
    return toEndpointDto(row);
  }

  async update(
    ctx: AppContext,
    id: number,
    dto: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    const row = await this.endpoints.update(
      this.transactions.db.tenant(ctx.tenantId),
      ctx.appId,
      id,
      dto,
    );
    if (!row) throw notFound(id);
    return toEndpointDto(row);
  }

  async remove(ctx: AppContext, id: number): Promise<void> {
    if (!(await this.endpoints.remove(this.transactions.db.tenant(ctx.tenantId), ctx.appId, id))) {
      throw notFound(id);
    }
  }

  async rotateSecret(ctx: AppContext, id: number): Promise<WebhookEndpointWithSecretDto> {
    const secret = newSigningSecret();
    const row = await this.endpoints.rotateSecret(
      this.transactions.db.tenant(ctx.tenantId),
      ctx.appId,
      id,
      this.box.seal(secret),
      SECRET_OVERLAP_SECONDS,
    );
    if (!row) throw notFound(id);
    return Object.assign(toEndpointDto(row), { secret });
  }

  /** The delivery log, newest first: an expensive request (deep pages), within the caps. */
  deliveries(ctx: AppContext, id: number, query: PageQuery): Promise<Page<WebhookDeliveryDto>> {
    return this.expensive.run(ctx, () => this.readDeliveries(ctx, id, query));
  }

  private async readDeliveries(
    ctx: AppContext,
    id: number,
    query: PageQuery,
  ): Promise<Page<WebhookDeliveryDto>> {
    const tenant = this.transactions.db.tenant(ctx.tenantId);
    if (!(await this.endpoints.find(tenant, ctx.appId, id))) throw notFound(id);
    const { rows, total } = await this.endpoints.deliveries(
      tenant,
      id,
      query.limit,
      offsetOf(query),
    );
    return toPage(rows.map(toDeliveryDto), total, query);
  }

  /**
   * A finished delivery: pending again and due now, one new attempt with the same
   * `webhook-id`. A pending one keeps the attempt it has coming: no second job, no extra
   * attempt, however many times this is asked.
   */
  async redeliver(ctx: AppContext, id: number, deliveryId: number): Promise<WebhookDeliveryDto> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      if (!(await this.endpoints.find(tenant, ctx.appId, id))) throw notFound(id);
      const requeue = await this.endpoints.requeue(tenant, id, deliveryId);
      if (!requeue) throw new AppError('not_found', `delivery ${deliveryId} not found`);
      if (requeue.requeued) {
        await this.queue.insertInTransaction(db, [
          deliveryJob({ tenantId: ctx.tenantId, deliveryId }),
        ]);
        this.transactions.afterCommit(() => this.worker.wake()); // sent at once, not at a poll
      }
      return toDeliveryDto((await this.endpoints.delivery(tenant, deliveryId))!);
    });
  }

  /** The URL rules, then the host's addresses now (they are checked again at every delivery). */
  private async checkUrl(text: string): Promise<void> {
    const policy = {
      allowHttp: this.config.WEBHOOK_ALLOW_HTTP,
      allowPrivateNetworks: this.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    };
    const refusal = await targetRefusal(text, policy);
    if (!refusal) return;
    // A developer pointing a webhook at a local receiver is told which settings allow it.
    const settings = (await flagsThatAllow(text, policy)).map((flag) => `${SETTINGS[flag]}=true`);
    const message =
      settings.length === 0
        ? refusal.message
        : `${refusal.message} (a server started with ${settings.join(' and ')} accepts it: ` +
          'for development only)';
    throw new AppError('validation_failed', `url ${message}`, {
      details: [{ field: 'url', message }],
    });
  }
}

/** The configuration variable behind each flag of the target policy. */
const SETTINGS: Record<keyof TargetPolicy, string> = {
  allowHttp: 'WEBHOOK_ALLOW_HTTP',
  allowPrivateNetworks: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
};

function notFound(id: number): AppError {
  return new AppError('not_found', `webhook endpoint ${id} not found`);
}
