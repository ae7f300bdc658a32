import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppsService } from '../apps/apps.service.js';
import { DemoSeedService, demoBanner } from '../seed/demo-seed.service.js';
import { SingleBar, Presets } from 'cli-progress';
import { currentAdmin } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import { OrderSeeder } from '../seed/order-seeder.service.js';
import {
  AdminCommand,
  nonNegativeInt,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

@SubCommand({
  name: 'demo',
  description: 'create a demo tenant, catalog and app (prints the secret once)',
})
export class SeedDemoCommand extends AdminCommand {
  constructor(
    private readonly seeder: DemoSeedService,
    private readonly apps: AppsService,
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
    // The curl line names the running server's URL, not this process's PORT.
    return { json, text: demoBanner(demo, await this.apps.serverPublicUrl()) };
  }
}

interface SeedOrdersOptions extends JsonOption {
  tenant?: string;
  count?: string;
  customers?: string;
  days?: string;
}

/** Upper bound of --count: a seed is a benchmark or a demo, not a migration. */
const MAX_SEED_ORDERS = 10_000_000;
/** Every batch carries the customers' ids, names and emails; a century of history is plenty. */
const MAX_SEED_CUSTOMERS = 100_000;
const MAX_SEED_DAYS = 36_500;

@SubCommand({
  name: 'orders',
  description: 'generate realistic orders for benchmarks and demos (no events, no webhooks)',
})
export class SeedOrdersCommand extends AdminCommand<SeedOrdersOptions> {
  constructor(private readonly seeder: OrderSeeder) {
    super();
  }

  protected async execute(options: SeedOrdersOptions): Promise<CommandOutput> {
    requireOptions(options, ['tenant', 'count']);
    const tenantId = positiveInt('tenant', options.tenant!);
    const count = positiveInt('count', options.count!);
    if (count > MAX_SEED_ORDERS) {
      throw new AppError('validation_failed', `--count must be at most ${MAX_SEED_ORDERS}`);
    }
    const customers =
      options.customers === undefined ? 0 : nonNegativeInt('customers', options.customers);
    const days = options.days === undefined ? 365 : positiveInt('days', options.days);
    if (customers > MAX_SEED_CUSTOMERS || days > MAX_SEED_DAYS) {
      throw new AppError(
        'validation_failed',
        `--customers must be at most ${MAX_SEED_CUSTOMERS} and --days at most ${MAX_SEED_DAYS}`,
      );
    }
    // A progress bar on a terminal only (stderr: stdout carries the result).
    const bar = process.stderr.isTTY
      ? new SingleBar({ stream: process.stderr, etaBuffer: 20 }, Presets.shades_classic)
      : undefined;
    bar?.start(count, 0);
    try {
      const { seconds } = await this.seeder.seed(currentAdmin(), {
        tenantId,
        count,
        customers,
        days,
        onProgress: (written) => bar?.update(written),
      });
      const rounded = Math.round(seconds * 100) / 100;
      return {
        json: { tenant_id: tenantId, count, seconds: rounded },
        text: `${count} orders for tenant ${tenantId} in ${rounded} s (${Math.round(count / seconds)} orders/s)`,
      };
    } finally {
      bar?.stop();
    }
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--count <n>', description: `orders to create (at most ${MAX_SEED_ORDERS})` })
  parseCount(value: string): string {
    return value;
  }
  @Option({
    flags: '--customers <k>',
    description: 'registered customers owning 30% of the orders, created when missing (default 0)',
  })
  parseCustomers(value: string): string {
    return value;
  }
  @Option({
    flags: '--days <d>',
    description: 'spread created_at over the past D days (default 365)',
  })
  parseDays(value: string): string {
    return value;
  }
}

@Command({
  name: 'seed',
  description: 'create sample data',
  subCommands: [SeedDemoCommand, SeedOrdersCommand],
})
export class SeedCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
