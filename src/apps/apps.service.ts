import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import { AccessTokenIssuer, type IssuedToken } from '../auth/access-token-issuer.service.js';
import { AppClientsRepository } from '../auth/app-clients.repository.js';
import { AppTokensRepository, type RevokedAppToken } from '../auth/app-tokens.repository.js';
import { CredentialsEvents } from '../auth/credentials-events.service.js';
import { PublishedIssuerRepository } from '../auth/published-issuer.repository.js';
import { isScope, parseScopeList } from '../auth/scopes.js';
import type { Actor } from '../audit/actor.js';
import type { AdminContext } from '../common/admin-context.js';
import { hasCharLength } from '../common/char-length.js';
import { AppError } from '../common/errors/app-error.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import type { Db } from '../database/sql/db.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { EventType } from '../outbox/event-types.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { toAppView } from './app.mapper.js';
import { type AppChanges, type AppRow, AppsRepository } from './apps.repository.js';
import { generateClientId, generateClientSecret, hashClientSecret } from './client-secret.js';

export interface CreatedApp {
  app: AppRow;
  /** Shown once; only its hash and last four characters are stored. */
  clientSecret: string;
}

/** Private app tokens made by an admin may outlive the token endpoint's; a year at most. */
const MAX_PRIVATE_TOKEN_TTL = 365 * 24 * 3600;

/**
 * Admin operations on apps. Each runs in one unit of work with its audit record, its
 * credentials event (so every instance drops what it cached when, and only if, it commits)
 * and its outbox event. Rotation, scope changes and deactivation bump `credentials_version`:
 * tokens carry the version they were issued under and die with it
 * (docs/BEHAVIOUR.md#token-lifecycle). The CLI names an app by client_id and a token by its
 * id alone: the tenant is looked up first (the `credentials` cross-tenant path), and
 * everything after runs on that tenant's path.
 */
@Injectable()
export class AppsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly apps: AppsRepository,
    private readonly appTokens: AppTokensRepository,
    private readonly clients: AppClientsRepository,
    private readonly secrets: ServerSecrets,
    private readonly audit: AuditRepository,
    private readonly tokens: AccessTokenIssuer,
    private readonly issuers: PublishedIssuerRepository,
    private readonly config: AppConfig,
    private readonly events: OutboxRepository,
    private readonly credentials: CredentialsEvents,
  ) {}

  /** Joins the caller's unit of work when there is one (the demo seed makes several things). */
  async create(
    admin: AdminContext,
    input: { tenantId: number; name: string; scopes: string },
  ): Promise<CreatedApp> {
    const name = input.name.trim();
    if (!hasCharLength(name, 1, 200)) {
      throw new AppError('validation_failed', 'name must be 1 to 200 characters');
    }
    const approvedScopes = validScopes(input.scopes);
    return this.transactions.run(async (db) => {
      await this.tenants.get(input.tenantId, db);
      const tenant = db.tenant(input.tenantId);
      const clientSecret = generateClientSecret();
      const clientId = generateClientId();
      await this.clients.register(tenant, clientId);
      const app = await this.apps.insert(tenant, {
        name,
        clientId,
        secretHash: hashClientSecret(clientSecret, this.secrets.pepper),
        secretLast4: clientSecret.slice(-4),
        approvedScopes,
      });
      await this.record(tenant, admin, app, 'app.create', {
        name,
        approved_scopes: approvedScopes,
      });
      return { app, clientSecret };
    });
  }

  async list(_admin: AdminContext, tenantId: number): Promise<AppRow[]> {
    const db = this.transactions.db;
    await this.tenants.get(tenantId, db);
    return this.apps.list(db.tenant(tenantId));
  }

  async rotateSecret(admin: AdminContext, clientId: string): Promise<CreatedApp> {
    const clientSecret = generateClientSecret();
    const app = await this.change(
      admin,
      clientId,
      'app.rotate_secret',
      'app.secret_rotated',
      {},
      (a) => ({
        secretHash: hashClientSecret(clientSecret, this.secrets.pepper),
        secretLast4: clientSecret.slice(-4),
        credentialsVersion: a.credentialsVersion + 1,
      }),
    );
    return { app, clientSecret };
  }

  setScopes(admin: AdminContext, clientId: string, scopes: string): Promise<AppRow> {
    const approvedScopes = validScopes(scopes);
    return this.change(
      admin,
      clientId,
      'app.set_scopes',
      'app.scopes_changed',
      { approved_scopes: approvedScopes },
      (a) => ({ approvedScopes, credentialsVersion: a.credentialsVersion + 1 }),
    );
  }

  /**
   * Deactivation also retires every token issued so far: reactivating revives none. Setting
   * the state the app is already in changes nothing (no new version, no event).
   */
  setActive(admin: AdminContext, clientId: string, active: boolean): Promise<AppRow> {
    return this.change(
      admin,
      clientId,
      active ? 'app.activate' : 'app.deactivate',
      active ? 'app.activated' : 'app.deactivated',
      {},
      (a) =>
        a.active === active
          ? undefined
          : {
              active,
              credentialsVersion: active ? a.credentialsVersion : a.credentialsVersion + 1,
            },
    );
  }

  /**
   * The public URL (and token issuer) of the server on this database, as it published it when
   * it started: a CLI run with another PORT, or none, still speaks of the server's. This
   * process's own when no server ever started on the database.
   */
  async serverPublicUrl(): Promise<string> {
    return (await this.issuers.find(this.transactions.db.shared())) ?? this.config.publicUrl;
  }

  /** A private app token (`app token`, docs/BEHAVIOUR.md#admin-cli), for approved scopes only. */
  async issuePrivateToken(
    admin: AdminContext,
    clientId: string,
    scopes: string | undefined,
    ttl: number | undefined,
  ): Promise<IssuedToken> {
    const ttlSeconds = ttl ?? this.config.ACCESS_TOKEN_TTL;
    if (
      !Number.isSafeInteger(ttlSeconds) ||
      ttlSeconds < 60 ||
      ttlSeconds > MAX_PRIVATE_TOKEN_TTL
    ) {
      throw new AppError('validation_failed', `ttl must be 60 to ${MAX_PRIVATE_TOKEN_TTL} seconds`);
    }
    const issuer = await this.serverPublicUrl();
    return this.transactions.run(async (db) => {
      const { tenant, app } = await this.lock(db, clientId);
      if (!app.active) throw new AppError('validation_failed', `app ${clientId} is inactive`);
      const requested = scopes === undefined ? app.approvedScopes : parseScopeList(scopes);
      const unapproved = requested.filter((s) => !app.approvedScopes.includes(s));
      if (requested.length === 0 || unapproved.length > 0) {
        throw new AppError(
          'invalid_scope',
          `scope(s) not approved for the app: ${unapproved.join(' ') || '(none requested)'}`,
        );
      }
      const token = await this.tokens.issueAppToken(
        db,
        {
          appId: app.id,
          tenantId: app.tenantId,
          clientId: app.clientId,
          credentialsVersion: app.credentialsVersion,
        },
        requested,
        ttlSeconds,
        issuer,
      );
      await this.record(tenant, admin, app, 'app.issue_token', {
        token_id: token.tokenId,
        scope: token.scope,
        ttl: ttlSeconds,
      });
      return token;
    });
  }

  async revokeToken(
    admin: AdminContext,
    tokenId: string,
  ): Promise<{ tokenId: string; clientId: string; revokedAt: Date }> {
    const notFound = () => new AppError('not_found', `token ${tokenId} does not exist`);
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(tokenId)) {
      throw notFound();
    }
    return this.transactions.run(async (db) => {
      const tenantId = await this.appTokens.tenantOf(db.crossTenant('credentials'), tokenId);
      if (tenantId === undefined) throw notFound();
      const revoked = await this.revokeTokenIn(db, tenantId, tokenId, admin);
      if (!revoked) throw notFound();
      return { tokenId, clientId: revoked.clientId, revokedAt: revoked.revokedAt };
    });
  }

  /**
   * Revokes a token of the tenant in the caller's unit of work (the CLI, or the app itself through
   * RFC 7009): announced to every instance, audited, and its `token.revoked` event written once.
   * Undefined when the tenant has no such token.
   */
  async revokeTokenIn(
    db: Db,
    tenantId: number,
    tokenId: string,
    by: Actor,
  ): Promise<RevokedAppToken | undefined> {
    const tenant = db.tenant(tenantId);
    const revoked = await this.appTokens.revoke(tenant, tokenId);
    if (!revoked) return undefined;
    await this.credentials.publish(db, {
      kind: 'token',
      jti: tokenId,
      expiresAt: revoked.expiresAt.getTime(),
    });
    await this.audit.record(tenant, by, {
      action: 'app.revoke_token',
      targetType: 'app_token',
      targetId: tokenId,
      details: { client_id: revoked.clientId },
    });
    // Revoking a revoked token changes nothing: no second event.
    if (revoked.newly) {
      await this.events.append(tenant, [
        {
          appId: revoked.appId,
          type: 'token.revoked',
          data: {
            object: {
              id: tokenId,
              client_id: revoked.clientId,
              revoked_at: revoked.revokedAt.toISOString(),
            },
          },
        },
      ]);
    }
    return revoked;
  }

  /**
   * Locks the app row, applies `update`, announces and audits the change, and writes its
   * event for the app alone to see (docs/BEHAVIOUR.md#events).
   */
  private change(
    admin: AdminContext,
    clientId: string,
    action: string,
    eventType: EventType,
    details: Record<string, unknown>,
    /** The fields to change; undefined when the app is already as asked. */
    update: (app: AppRow) => AppChanges | undefined,
  ): Promise<AppRow> {
    return this.transactions.run(async (db) => {
      const { tenant, app } = await this.lock(db, clientId);
      const changes = update(app);
      if (!changes) return app; // nothing to change: no version, no audit, no event
      // Locked above in this unit: it is still there.
      const saved = (await this.apps.update(tenant, app.id, changes))!;
      await this.credentials.publish(db, { kind: 'app', appId: saved.id });
      await this.record(tenant, admin, saved, action, details);
      await this.events.append(tenant, [
        { appId: saved.id, type: eventType, data: { object: toAppView(saved) } },
      ]);
      return saved;
    });
  }

  /** The app a client_id names, locked in `db`'s unit, and its tenant's path. */
  private async lock(db: Db, clientId: string): Promise<{ tenant: TenantSql; app: AppRow }> {
    const notFound = () => new AppError('not_found', `app ${clientId} does not exist`);
    const tenantId = await this.clients.tenantOf(db.crossTenant('credentials'), clientId);
    if (tenantId === undefined) throw notFound();
    const tenant = db.tenant(tenantId);
    const app = await this.apps.lock(tenant, clientId);
    if (!app) throw notFound();
    return { tenant, app };
  }

  private record(
    db: TenantSql,
    admin: AdminContext,
    app: AppRow,
    action: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record(db, admin, {
      action,
      targetType: 'app',
      targetId: app.clientId,
      details,
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
