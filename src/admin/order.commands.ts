import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { currentAdmin } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';
import { OrdersService } from '../orders/orders.service.js';
import {
  AdminCommand,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface SetStatusOptions extends JsonOption {
  tenant?: string;
  order?: string;
  status?: string;
}

@SubCommand({ name: 'set-status', description: 'change an order status (same rules as the API)' })
export class OrderSetStatusCommand extends AdminCommand<SetStatusOptions> {
  constructor(private readonly orders: OrdersService) {
    super();
  }

  protected async execute(o: SetStatusOptions): Promise<CommandOutput> {
    requireOptions(o, ['tenant', 'order', 'status']);
    if (!(ORDER_STATUSES as readonly string[]).includes(o.status!)) {
      throw new AppError(
        'validation_failed',
        `--status must be one of ${ORDER_STATUSES.join(', ')}`,
      );
    }
    const tenantId = positiveInt('tenant', o.tenant!);
    const orderId = positiveInt('order', o.order!);
    // The change and its audit row commit together (OrdersService.changeStatus).
    const order = await this.orders.changeStatus(
      currentAdmin(),
      tenantId,
      orderId,
      o.status as OrderStatus,
    );
    return {
      json: order as unknown as Record<string, unknown>,
      text: `order ${order.id} is now ${order.status}`,
    };
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--order <id>' })
  parseOrder(value: string): string {
    return value;
  }
  @Option({ flags: '--status <status>' })
  parseStatus(value: string): string {
    return value;
  }
}

@Command({ name: 'order', description: 'manage orders', subCommands: [OrderSetStatusCommand] })
export class OrderCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
