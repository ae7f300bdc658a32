import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { currentAdmin } from '../common/admin-context.js';
import { toTenantView } from '../tenants/tenant.mapper.js';
import { TenantsService } from '../tenants/tenants.service.js';
import {
  AdminCommand,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface CreateOptions extends JsonOption {
  name?: string;
  currency?: string;
}

@SubCommand({ name: 'create', description: 'create a tenant' })
export class TenantCreateCommand extends AdminCommand<CreateOptions> {
  constructor(private readonly tenants: TenantsService) {
    super();
  }

  protected async execute(options: CreateOptions): Promise<CommandOutput> {
    requireOptions(options, ['name', 'currency']);
    const tenant = await this.tenants.create(currentAdmin(), {
      name: options.name!,
      currency: options.currency!,
    });
    return {
      json: toTenantView(tenant),
      text: `tenant ${tenant.id} created (${tenant.name}, ${tenant.currency})`,
    };
  }

  @Option({ flags: '--name <name>', description: 'display name, 1-200 characters' })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--currency <code>',
    description: 'ISO 4217 currency of all its prices and orders',
  })
  parseCurrency(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'list', description: 'list tenants' })
export class TenantListCommand extends AdminCommand {
  constructor(private readonly tenants: TenantsService) {
    super();
  }

  protected async execute(): Promise<CommandOutput> {
    const tenants = await this.tenants.list(currentAdmin());
    const lines = tenants.map((t) => `${t.id}\t${t.currency}\t${t.name}`);
    return {
      json: { tenants: tenants.map(toTenantView) },
      text: ['id\tcurrency\tname', ...lines].join('\n'),
    };
  }
}

@Command({
  name: 'tenant',
  description: 'manage tenants',
  subCommands: [TenantCreateCommand, TenantListCommand],
})
export class TenantCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
