import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { HttpAnswer } from '../common/http/http-result.js';
import { Transactions } from '../database/transactions.js';
import { IMPORT_QUEUE, JobQueue } from '../queue/job-queue.service.js';
import { TenantsService } from '../tenants/tenants.service.js';
import type { ImportAckDto, ImportOrderDto, ImportStatusDto } from './dto/import-order.dto.js';
import { importLineAmounts } from './import-amounts.js';
import type { ImportJob } from './import-job.js';
import { toStatusDto } from './import-status.mapper.js';
import { ImportLanesRepository, priorityOf } from './import-lanes.repository.js';
import { ImportsRepository } from './imports.repository.js';

/** Accepting imports: validation, then the import row and its job in one transaction. */
@Injectable()
export class ImportsService {
  constructor(
    private readonly imports: ImportsRepository,
    private readonly lanes: ImportLanesRepository,
    private readonly queue: JobQueue,
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
  ) {}

  /**
   * 202 with the ack the first time; 200 with the current state for a repeat. Its amounts are
   * checked against the tenant's currency first (400 at once, never a job that must fail).
   */
  async accept(
    ctx: RequestContext,
    dto: ImportOrderDto,
  ): Promise<HttpAnswer<ImportAckDto | ImportStatusDto>> {
    importLineAmounts(dto.items, await this.tenants.currencyOf(ctx.tenantId));
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const location = statusPath(dto.marketplace, dto.external_order_id);
      const created = await this.imports.insert(tenant, ctx.appId, dto);
      if (created) {
        const job: ImportJob = { tenantId: ctx.tenantId, importId: created.id };
        // Its turn among the tenants' imports (import-lanes.repository.ts).
        const priority = priorityOf(await this.lanes.nextTag(tenant));
        await this.queue.sendInTransaction(db, IMPORT_QUEUE, job, { priority });
        const ack: ImportAckDto = { status: 'queued', external_order_id: dto.external_order_id };
        return new HttpAnswer(202, ack, { location });
      }
      const existing = await this.imports.find(tenant, dto.marketplace, dto.external_order_id);
      return new HttpAnswer(200, toStatusDto(existing!), { location });
    });
  }

  async status(
    ctx: RequestContext,
    marketplace: string,
    externalOrderId: string,
  ): Promise<ImportStatusDto> {
    const row = await this.imports.find(
      this.transactions.db.tenant(ctx.tenantId),
      marketplace,
      externalOrderId,
    );
    if (!row)
      throw new AppError('not_found', `no import of ${marketplace} order ${externalOrderId}`);
    return toStatusDto(row);
  }
}

function statusPath(marketplace: string, externalOrderId: string): string {
  return `/v1/marketplace/orders/import/${encodeURIComponent(marketplace)}/${encodeURIComponent(externalOrderId)}`;
}
