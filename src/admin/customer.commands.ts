import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { currentAdmin } from '../common/admin-context.js';
import { toCustomerDto } from '../customers/customer.mapper.js';
import { CustomerVerification } from '../customers/customer-verification.service.js';
import {
  AdminCommand,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface VerifyOptions extends JsonOption {
  tenant?: string;
  email?: string;
}

@SubCommand({
  name: 'verify',
  description: "mark a customer's email verified (checked by other means) and link their orders",
})
export class CustomerVerifyCommand extends AdminCommand<VerifyOptions> {
  constructor(private readonly verification: CustomerVerification) {
    super();
  }

  protected async execute(o: VerifyOptions): Promise<CommandOutput> {
    requireOptions(o, ['tenant', 'email']);
    const tenantId = positiveInt('tenant', o.tenant!);
    const { customer, linkedOrders } = await this.verification.verifyByStaff(
      currentAdmin(),
      tenantId,
      o.email!,
    );
    return {
      json: { customer: toCustomerDto(customer), linked_orders: linkedOrders },
      text: `customer ${customer.id} (${customer.email}) verified; ${linkedOrders} earlier order(s) linked`,
    };
  }

  @Option({ flags: '--tenant <id>' })
  parseTenant(value: string): string {
    return value;
  }
  @Option({ flags: '--email <email>' })
  parseEmail(value: string): string {
    return value;
  }
}

@Command({
  name: 'customer',
  description: 'manage customer accounts',
  subCommands: [CustomerVerifyCommand],
})
export class CustomerCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
