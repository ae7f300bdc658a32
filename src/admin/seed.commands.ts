import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { DemoSeedService, demoBanner } from '../seed/demo-seed.service.js';
import { AdminCommand, type CommandOutput } from './admin-command.js';

@SubCommand({
  name: 'demo',
  description: 'create a demo tenant, catalog and app (prints the secret once)',
})
export class SeedDemoCommand extends AdminCommand {
  constructor(
    private readonly seeder: DemoSeedService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  protected async execute(): Promise<CommandOutput> {
    const demo = await this.seeder.seed();
    const json = {
      tenant_id: demo.tenant.id,
      client_id: demo.app.clientId,
      client_secret: demo.clientSecret,
      approved_scopes: demo.app.approvedScopes,
      products: demo.products.map((p) => p.sku),
    };
    return { json, text: demoBanner(demo, this.config.publicUrl) };
  }
}

@Command({ name: 'seed', description: 'create sample data', subCommands: [SeedDemoCommand] })
export class SeedCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
