import { readFile } from 'node:fs/promises';
import { SingleBar, Presets } from 'cli-progress';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { currentAdmin } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import { parseProductCsv } from '../products/product-csv.js';
import { parseProductInput } from '../products/product-input.js';
import { toProductDto } from '../products/product.mapper.js';
import { ProductsService } from '../products/products.service.js';
import { TenantsService } from '../tenants/tenants.service.js';
import {
  AdminCommand,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface CreateOptions extends JsonOption {
  tenant?: string;
  sku?: string;
  name?: string;
  price?: string;
  stock?: string;
}

@SubCommand({ name: 'create', description: 'add a product to a tenant catalog' })
export class ProductCreateCommand extends AdminCommand<CreateOptions> {
  constructor(
    private readonly products: ProductsService,
    private readonly tenants: TenantsService,
  ) {
    super();
  }

  protected async execute(options: CreateOptions): Promise<CommandOutput> {
    requireOptions(options, ['tenant', 'sku', 'name', 'price']);
    const tenantId = positiveInt('tenant', options.tenant!);
    // The price has the digits of the tenant's currency (JPY none, KWD 3).
    const input = parseProductInput(
      {
        sku: options.sku!,
        name: options.name!,
        price: options.price!,
        stock: options.stock,
      },
      await this.tenants.currencyOf(tenantId),
    );
    if ('errors' in input) throw new AppError('validation_failed', input.errors.join('; '));
    const p = await this.products.createAsAdmin(currentAdmin(), tenantId, input);
    const json: Record<string, unknown> = { tenant_id: tenantId };
    Object.assign(json, toProductDto(p));
    const stock = p.inventory_tracked ? `, ${p.available} in stock` : '';
    return { json, text: `product ${p.id} created (${p.sku}${stock})` };
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--sku <sku>' })
  parseSku(value: string): string {
    return value;
  }
  @Option({ flags: '--name <name>' })
  parseName(value: string): string {
    return value;
  }
  @Option({
    flags: '--price <amount>',
    description: "decimal with at most the tenant currency's minor digits, e.g. 19.99",
  })
  parsePrice(value: string): string {
    return value;
  }
  @Option({ flags: '--stock <count>', description: 'track stock, with this many available' })
  parseStock(value: string): string {
    return value;
  }
}

interface ImportOptions extends JsonOption {
  tenant?: string;
  file?: string;
}

@SubCommand({
  name: 'import',
  description: 'upsert products by sku from a CSV (sku,name,price[,active][,stock])',
})
export class ProductImportCommand extends AdminCommand<ImportOptions> {
  constructor(
    private readonly products: ProductsService,
    private readonly tenants: TenantsService,
  ) {
    super();
  }

  protected async execute(options: ImportOptions): Promise<CommandOutput> {
    requireOptions(options, ['tenant', 'file']);
    const tenantId = positiveInt('tenant', options.tenant!);
    const text = await readFile(options.file!, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new AppError(
        'validation_failed',
        `cannot read ${options.file}: ${e.code ?? e.message}`,
      );
    });
    const csv = parseProductCsv(text, await this.tenants.currencyOf(tenantId));
    // Progress goes to stderr: stdout carries only the result.
    const bar = new SingleBar({ stream: process.stderr, etaBuffer: 5 }, Presets.shades_classic);
    bar.start(csv.rows.length, 0);
    try {
      const result = await this.products.importMany(currentAdmin(), tenantId, csv.rows, {
        hasActiveColumn: csv.hasActiveColumn,
        onProgress: (done) => bar.update(done),
      });
      bar.stop();
      const json = { tenant_id: tenantId, rows: csv.rows.length, ...result };
      return {
        json,
        text: `${csv.rows.length} rows: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged`,
      };
    } finally {
      bar.stop();
    }
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--file <path>' })
  parseFile(value: string): string {
    return value;
  }
}

@Command({
  name: 'product',
  description: 'manage the catalog',
  subCommands: [ProductCreateCommand, ProductImportCommand],
})
export class ProductCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
