import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { isScope, parseScopeList } from '../auth/scopes.js';
import { AppError } from '../common/errors/app-error.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { App } from './app.entity.js';
import { generateClientId, generateClientSecret, hashClientSecret } from './client-secret.js';

export interface CreatedApp {
  app: App;
  /** Shown once; only its hash and last four characters are stored. */
  clientSecret: string;
}

@Injectable()
export class AppsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tenants: TenantsService,
    private readonly secrets: ServerSecrets,
    private readonly audit: AuditService,
  ) {}

  async create(
    input: { tenantId: number; name: string; scopes: string },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<CreatedApp> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) {
      throw new AppError('validation_failed', 'name must be 1 to 200 characters');
    }
    const approvedScopes = validScopes(input.scopes);
    return manager.transaction(async (tx) => {
      await this.tenants.get(input.tenantId, tx);
      const clientSecret = generateClientSecret();
      const app = await tx.save(
        tx.create(App, {
          tenantId: input.tenantId,
          name,
          clientId: generateClientId(),
          secretHash: hashClientSecret(clientSecret, this.secrets.pepper),
          secretLast4: clientSecret.slice(-4),
          approvedScopes,
          active: true,
          credentialsVersion: 1,
        }),
      );
      await this.audit.record(
        {
          tenantId: app.tenantId,
          action: 'app.create',
          targetType: 'app',
          targetId: app.clientId,
          details: { name, approved_scopes: approvedScopes },
        },
        tx,
      );
      return { app, clientSecret };
    });
  }
}

function validScopes(list: string): string[] {
  const scopes = parseScopeList(list);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0)
    throw new AppError('validation_failed', 'scopes must name at least one scope');
  if (unknown.length > 0)
    throw new AppError('validation_failed', `unknown scope(s): ${unknown.join(', ')}`);
  return scopes;
}
