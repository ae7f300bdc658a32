import { isEmail } from 'class-validator';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { currentAdmin } from '../common/admin-context.js';
import { hasCharLength } from '../common/char-length.js';
import { AppError } from '../common/errors/app-error.js';
import { toCustomerDto } from '../customers/customer.mapper.js';
import { CustomerData } from '../customers/customer-data.service.js';
import { CustomerErasure } from '../customers/customer-erasure.service.js';
import { CustomerVerification } from '../customers/customer-verification.service.js';
import { TenantsService } from '../tenants/tenants.service.js';
import {
  AdminCommand,
  positiveInt,
  requireOptions,
  type CommandOutput,
  type JsonOption,
} from './admin-command.js';

interface PersonOptions extends JsonOption {
  tenant?: string;
  email?: string;
}

/** The --tenant and --email of a person's request, checked as the API checks them. */
abstract class PersonCommand extends AdminCommand<PersonOptions> {
  constructor(private readonly tenants: TenantsService) {
    super();
  }

  protected async person(o: PersonOptions): Promise<{ tenantId: number; email: string }> {
    requireOptions(o, ['tenant', 'email']);
    const tenantId = positiveInt('tenant', o.tenant!);
    const email = o.email!;
    if (!isEmail(email) || !hasCharLength(email, 3, 254)) {
      throw new AppError('validation_failed', `--email must be an email address, got "${email}"`);
    }
    await this.tenants.get(tenantId);
    return { tenantId, email };
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

@SubCommand({
  name: 'verify',
  description: "mark a customer's email verified (checked by other means) and link their orders",
})
export class CustomerVerifyCommand extends PersonCommand {
  constructor(
    tenants: TenantsService,
    private readonly verification: CustomerVerification,
  ) {
    super(tenants);
  }

  protected async execute(o: PersonOptions): Promise<CommandOutput> {
    const { tenantId, email } = await this.person(o);
    const { customer, linkedOrders } = await this.verification.verifyByStaff(
      currentAdmin(),
      tenantId,
      email,
    );
    return {
      json: { customer: toCustomerDto(customer), linked_orders: linkedOrders },
      text: `customer ${customer.id} (${customer.email}) verified; ${linkedOrders} earlier order(s) linked`,
    };
  }
}

@SubCommand({
  name: 'export',
  description: 'print what the tenant holds about a person (a request by mail or phone; JSON)',
})
export class CustomerExportCommand extends PersonCommand {
  constructor(
    tenants: TenantsService,
    private readonly data: CustomerData,
  ) {
    super(tenants);
  }

  protected async execute(o: PersonOptions): Promise<CommandOutput> {
    const { tenantId, email } = await this.person(o);
    const exported = JSON.parse(await this.data.exportOf(tenantId, email)) as Record<
      string,
      unknown
    >;
    // The export is the answer to hand over: JSON either way.
    return { json: exported, text: JSON.stringify(exported, null, 2) };
  }
}

@SubCommand({
  name: 'erase',
  description:
    'erase a person: their account and the personal data of their orders and every copy (a request by mail or phone)',
})
export class CustomerEraseCommand extends PersonCommand {
  constructor(
    tenants: TenantsService,
    private readonly erasure: CustomerErasure,
  ) {
    super(tenants);
  }

  protected async execute(o: PersonOptions): Promise<CommandOutput> {
    const { tenantId, email } = await this.person(o);
    const erased = await this.erasure.erase(currentAdmin(), tenantId, email);
    return {
      json: erased as unknown as Record<string, unknown>,
      text:
        `erased ${erased.customer_id === null ? 'no account' : `customer ${erased.customer_id}`}; ` +
        `${erased.orders_redacted} order(s) redacted; email hash ${erased.email_hash}`,
    };
  }
}

@Command({
  name: 'customer',
  description: 'manage customer accounts',
  subCommands: [CustomerVerifyCommand, CustomerExportCommand, CustomerEraseCommand],
})
export class CustomerCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
