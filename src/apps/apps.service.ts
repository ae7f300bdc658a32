import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { publishedIssuer } from '../auth/published-issuer.js';
import { Transactions } from '../common/transactions.js';
import { AuditService } from '../audit/audit.service.js';
import { AccessTokenIssuer, type IssuedToken } from '../auth/access-token-issuer.service.js';
import { CredentialsEvents } from '../auth/credentials-events.service.js';
import { isScope, parseScopeList } from '../auth/scopes.js';
import { AppError } from '../common/errors/app-error.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { Db, legacyTenantSql } from '../database/sql/db.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import type { EventType } from '../outbox/event-types.js';
import { App } from './app.entity.js';
import { toAppView } from './app.mapper.js';
import { generateClientId, generateClientSecret, hashClientSecret } from './client-secret.js';
import { hasCharLength } from '../common/char-length.js';

export interface CreatedApp {
  app: App;
  /** Shown once; only its hash and last four characters are stored. */
  clientSecret: string;
}

/** Private app tokens made by an admin may outlive the token endpoint's; a year at most. */
const MAX_PRIVATE_TOKEN_TTL = 365 * 24 * 3600;

/**
 * Admin operations on apps. Each runs in one transaction with its audit record and a
 * credentials event, so every instance drops what it cached when (and only if) it commits.
 * Rotation, scope changes and deactivation bump `credentials_version`: tokens carry the
 * version they were issued under and die with it (docs/BEHAVIOUR.md#token-lifecycle).
 */
@Injectable()
export class AppsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly secrets: ServerSecrets,
    private readonly audit: AuditService,
    private readonly tokens: AccessTokenIssuer,
    private readonly config: AppConfig,
    private readonly events: OutboxRepository,
    private readonly credentials: CredentialsEvents,
  ) {}

  /** Joins the caller's transaction when there is one (the demo seed makes several things). */
  async create(input: { tenantId: number; name: string; scopes: string }): Promise<CreatedApp> {
    const name = input.name.trim();
    if (!hasCharLength(name, 1, 200)) {
      throw new AppError('validation_failed', 'name must be 1 to 200 characters');
    }
    const approvedScopes = validScopes(input.scopes);
    return this.transactions.runWithManager(async (tx) => {
      await this.tenants.get(input.tenantId);
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
      await this.record(app, 'app.create', { name, approved_scopes: approvedScopes });
      return { app, clientSecret };
    });
  }

  async list(tenantId: number): Promise<App[]> {
    await this.tenants.get(tenantId);
    return this.transactions.legacyManager.find(App, { where: { tenantId }, order: { id: 'ASC' } });
  }

  async rotateSecret(clientId: string): Promise<CreatedApp> {
    const clientSecret = generateClientSecret();
    const app = await this.change(clientId, 'app.rotate_secret', 'app.secret_rotated', {}, (a) => ({
      secretHash: hashClientSecret(clientSecret, this.secrets.pepper),
      secretLast4: clientSecret.slice(-4),
      credentialsVersion: a.credentialsVersion + 1,
    }));
    return { app, clientSecret };
  }

  setScopes(clientId: string, scopes: string): Promise<App> {
    const approvedScopes = validScopes(scopes);
    return this.change(
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
  setActive(clientId: string, active: boolean): Promise<App> {
    return this.change(
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

  /** A private app token (`app token`, docs/BEHAVIOUR.md#admin-cli), for approved scopes only. */
  async issuePrivateToken(
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
    const issuer =
      (await publishedIssuer(this.transactions.legacyManager)) ?? this.config.publicUrl;
    return this.transactions.runWithManager(async (tx) => {
      const app = await this.lock(tx, clientId);
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
      await this.record(app, 'app.issue_token', {
        token_id: token.tokenId,
        scope: token.scope,
        ttl: ttlSeconds,
      });
      return token;
    });
  }

  async revokeToken(
    tokenId: string,
  ): Promise<{ tokenId: string; clientId: string; revokedAt: Date }> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(tokenId)) {
      throw new AppError('not_found', `token ${tokenId} does not exist`);
    }
    return this.transactions.runWithManager(async (tx) => {
      const rows: Array<{
        tenant_id: number;
        app_id: number;
        client_id: string;
        revoked_at: Date;
        expires_at: Date;
        newly: boolean;
      }> = await tx.query(
        // Only the statement that sets revoked_at reports `newly` (a concurrent second
        // revocation re-checks the row after the first commits and finds it revoked).
        `WITH revoked AS (
           UPDATE app_tokens t SET revoked_at = now()
           FROM apps a
           WHERE t.jti = $1 AND t.revoked_at IS NULL AND a.tenant_id = t.tenant_id AND a.id = t.app_id
           RETURNING t.tenant_id, t.app_id, a.client_id, t.revoked_at, t.expires_at, true AS newly)
         SELECT * FROM revoked
         UNION ALL
         SELECT t.tenant_id, t.app_id, a.client_id, COALESCE(t.revoked_at, now()), t.expires_at, false
         FROM app_tokens t JOIN apps a ON a.tenant_id = t.tenant_id AND a.id = t.app_id
         WHERE t.jti = $1 AND NOT EXISTS (SELECT 1 FROM revoked)`,
        [tokenId],
      );
      const row = rows[0];
      if (!row) throw new AppError('not_found', `token ${tokenId} does not exist`);
      await this.credentials.publish(new Db(tx), {
        kind: 'token',
        jti: tokenId,
        expiresAt: row.expires_at.getTime(),
      });
      await this.audit.record({
        tenantId: row.tenant_id,
        action: 'app.revoke_token',
        targetType: 'app_token',
        targetId: tokenId,
        details: { client_id: row.client_id },
      });
      // Revoking a revoked token changes nothing: no second event.
      if (row.newly) {
        await this.events.append(legacyTenantSql(tx, row.tenant_id), [
          {
            appId: row.app_id,
            type: 'token.revoked',
            data: {
              object: {
                id: tokenId,
                client_id: row.client_id,
                revoked_at: row.revoked_at.toISOString(),
              },
            },
          },
        ]);
      }
      return { tokenId, clientId: row.client_id, revokedAt: row.revoked_at };
    });
  }

  /**
   * Locks the app row, applies `update`, announces and audits the change, and writes its
   * event for the app alone to see (docs/BEHAVIOUR.md#events).
   */
  private change(
    clientId: string,
    action: string,
    eventType: EventType,
    details: Record<string, unknown>,
    /** The fields to change; undefined when the app is already as asked. */
    update: (app: App) => Partial<App> | undefined,
  ): Promise<App> {
    return this.transactions.runWithManager(async (tx) => {
      const app = await this.lock(tx, clientId);
      const changes = update(app);
      if (!changes) return app; // nothing to change: no version, no audit, no event
      Object.assign(app, changes);
      const saved = await tx.save(app);
      await this.credentials.publish(new Db(tx), { kind: 'app', appId: app.id });
      await this.record(saved, action, details);
      await this.events.append(legacyTenantSql(tx, saved.tenantId), [
        {
          appId: saved.id,
          type: eventType,
          data: { object: toAppView(saved) },
        },
      ]);
      return saved;
    });
  }

  private async lock(tx: EntityManager, clientId: string): Promise<App> {
    const app = await tx.findOne(App, { where: { clientId }, lock: { mode: 'pessimistic_write' } });
    if (!app) throw new AppError('not_found', `app ${clientId} does not exist`);
    return app;
  }

  private record(app: App, action: string, details: Record<string, unknown>): Promise<void> {
    return this.audit.record({
      tenantId: app.tenantId,
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
