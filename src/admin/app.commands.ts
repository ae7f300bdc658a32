import { Injectable } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { toAppView as appJson } from '../apps/app.mapper.js';
import { AppsService } from '../apps/apps.service.js';
import { currentAdmin } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import {
  AdminCommand,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface AppOptions extends JsonOption {
  tenant?: string;
  name?: string;
  scopes?: string;
  clientId?: string;
  ttl?: string;
  tokenId?: string;
}

/** The options every app command may take; each command checks the ones it needs. */
@Injectable() // emits the constructor metadata that subclasses inherit
abstract class AppCommand extends AdminCommand<AppOptions> {
  constructor(protected readonly apps: AppsService) {
    super();
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--name <name>' })
  parseName(value: string): string {
    return value;
  }
  @Option({ flags: '--scopes <list>', description: 'space-separated scopes' })
  parseScopes(value: string): string {
    return value;
  }
  @Option({ flags: '--client-id <id>' })
  parseClientId(value: string): string {
    return value;
  }
  @Option({ flags: '--ttl <seconds>' })
  parseTtl(value: string): string {
    return value;
  }
  @Option({ flags: '--token-id <id>' })
  parseTokenId(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'create', description: 'create an app; prints its client secret once' })
export class AppCreateCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['tenant', 'name', 'scopes']);
    const { app, clientSecret } = await this.apps.create(currentAdmin(), {
      tenantId: positiveInt('tenant', o.tenant!),
      name: o.name!,
      scopes: o.scopes!,
    });
    return {
      json: { ...appJson(app), client_secret: clientSecret },
      text: `app ${app.id} created\nclient_id     ${app.clientId}\nclient_secret ${clientSecret}   (shown once)\nscopes        ${app.approvedScopes.join(' ')}`,
    };
  }
}

@SubCommand({ name: 'list', description: "list a tenant's apps (no secrets)" })
export class AppListCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['tenant']);
    const apps = await this.apps.list(currentAdmin(), positiveInt('tenant', o.tenant!));
    const lines = apps.map(
      (a) =>
        `${a.clientId}\t${a.active ? 'active' : 'inactive'}\t…${a.secretLast4}\t${a.name}\t${a.approvedScopes.join(' ')}`,
    );
    return {
      json: { apps: apps.map(appJson) },
      text: ['client_id\tstate\tsecret\tname\tscopes', ...lines].join('\n'),
    };
  }
}

@SubCommand({
  name: 'rotate-secret',
  description: 'new client secret; the old one and its tokens die at once',
})
export class AppRotateSecretCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['clientId']);
    const { app, clientSecret } = await this.apps.rotateSecret(currentAdmin(), o.clientId!);
    return {
      json: { ...appJson(app), client_secret: clientSecret },
      text: `secret rotated for ${app.clientId}\nclient_secret ${clientSecret}   (shown once)`,
    };
  }
}

@SubCommand({
  name: 'set-scopes',
  description: "change approved scopes; the app's tokens must be obtained again",
})
export class AppSetScopesCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['clientId', 'scopes']);
    const app = await this.apps.setScopes(currentAdmin(), o.clientId!, o.scopes!);
    return { json: appJson(app), text: `${app.clientId} scopes: ${app.approvedScopes.join(' ')}` };
  }
}

@SubCommand({ name: 'deactivate', description: 'refuse the app and all its tokens' })
export class AppDeactivateCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['clientId']);
    const app = await this.apps.setActive(currentAdmin(), o.clientId!, false);
    return { json: appJson(app), text: `${app.clientId} deactivated` };
  }
}

@SubCommand({ name: 'activate', description: 'accept the app again (earlier tokens stay dead)' })
export class AppActivateCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['clientId']);
    const app = await this.apps.setActive(currentAdmin(), o.clientId!, true);
    return { json: appJson(app), text: `${app.clientId} activated` };
  }
}

@SubCommand({ name: 'token', description: 'issue a private app token' })
export class AppTokenCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['clientId']);
    if (o.ttl !== undefined && !/^\d+$/.test(o.ttl))
      throw new AppError('validation_failed', '--ttl must be a number of seconds');
    const token = await this.apps.issuePrivateToken(
      currentAdmin(),
      o.clientId!,
      o.scopes,
      o.ttl === undefined ? undefined : Number(o.ttl),
    );
    const json = {
      access_token: token.accessToken,
      token_id: token.tokenId,
      expires_in: token.expiresIn,
      scope: token.scope,
    };
    return {
      json,
      text: `access_token ${token.accessToken}\ntoken_id     ${token.tokenId}\nexpires_in   ${token.expiresIn}\nscope        ${token.scope}`,
    };
  }
}

@SubCommand({ name: 'revoke-token', description: 'revoke one token by its id' })
export class AppRevokeTokenCommand extends AppCommand {
  protected async execute(o: AppOptions): Promise<CommandOutput> {
    requireOptions(o, ['tokenId']);
    const revoked = await this.apps.revokeToken(currentAdmin(), o.tokenId!);
    const json = {
      token_id: revoked.tokenId,
      client_id: revoked.clientId,
      revoked_at: revoked.revokedAt.toISOString(),
    };
    return { json, text: `token ${revoked.tokenId} revoked` };
  }
}

export const APP_SUBCOMMANDS = [
  AppCreateCommand,
  AppListCommand,
  AppRotateSecretCommand,
  AppSetScopesCommand,
  AppDeactivateCommand,
  AppActivateCommand,
  AppTokenCommand,
  AppRevokeTokenCommand,
];

@Command({
  name: 'app',
  description: 'manage private apps and their tokens',
  subCommands: APP_SUBCOMMANDS,
})
export class AppCommandGroup extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
