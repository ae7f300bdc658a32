import { Injectable } from '@nestjs/common';
import type { AppContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ExactRateLimiter } from '../rate-limit/exact-rate-limiter.service.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { CustomerSessions } from '../auth/customer-sessions.service.js';
import { CustomerTicketsRepository, type TicketType } from './customer-tickets.repository.js';
import { CustomerVerification } from './customer-verification.service.js';
import { CustomersRepository } from './customers.repository.js';
import { toCustomerDto } from './customer.mapper.js';
import type { CustomerDto } from './dto/customer.dto.js';
import type { TicketDto } from './dto/ticket.dto.js';
import { emailKey, loginLimits } from './login-limits.js';
import { PasswordWork } from './password-work.service.js';
import { generateTicketToken, hashTicketToken, TICKET_TOKEN_FORMAT } from './ticket-token.js';

/**
 * Tickets in the manner of Auth0's management API (docs/BEHAVIOUR.md#email-trust): the app asks for
 * a single-use token and delivers it in its own email; the service keeps only its HMAC.
 * Redeeming is one conditional UPDATE, so of concurrent redemptions exactly one wins.
 */
@Injectable()
export class CustomerTickets {
  private readonly failuresPerEmail: RateLimitRule;

  constructor(
    private readonly tickets: CustomerTicketsRepository,
    private readonly customers: CustomersRepository,
    private readonly verification: CustomerVerification,
    private readonly sessions: CustomerSessions,
    private readonly passwords: PasswordWork,
    private readonly limiter: ExactRateLimiter,
    private readonly transactions: Transactions,
    private readonly secrets: ServerSecrets,
    private readonly config: AppConfig,
  ) {
    this.failuresPerEmail = loginLimits(config).failuresPerEmail;
  }

  async issue(ctx: AppContext, type: TicketType, email: string): Promise<TicketDto> {
    const token = generateTicketToken();
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const customer = await this.customers.byEmail(tenant, email);
      if (!customer) throw new AppError('not_found', 'No customer with this email in the tenant');
      // Concurrent requests for tickets take turns, so exactly one ticket of a type is left;
      // a customer erased meanwhile gets none.
      if (!(await this.customers.lockForUpdate(tenant, customer.id))) {
        throw new AppError('not_found', 'No customer with this email in the tenant');
      }
      const { expires_at } = await this.tickets.replace(tenant, {
        customerId: customer.id,
        type,
        tokenHash: hashTicketToken(token, this.secrets.pepper),
        ttlSeconds: this.config.CUSTOMER_TICKET_TTL,
      });
      return { type, token, expires_at: expires_at.toISOString(), customer_id: customer.id };
    });
  }

  /** Verifies the email and links the earlier unlinked orders, in one transaction. */
  verifyEmail(ctx: AppContext, token: string): Promise<CustomerDto> {
    const tokenHash = this.hashOf(token);
    return this.transactions.run(async (db) => {
      const customerId = await this.tickets.redeem(
        db.tenant(ctx.tenantId),
        'email_verification',
        tokenHash,
      );
      if (customerId === undefined) throw invalidTicket();
      const { customer } = await this.verification.verify(db, ctx.tenantId, customerId);
      return toCustomerDto(customer);
    });
  }

  /**
   * A new password under the registration policy; every session of the customer ends (on
   * every instance, at commit) and the failed-login count of the email is cleared.
   */
  async resetPassword(ctx: AppContext, token: string, password: string): Promise<CustomerDto> {
    const tokenHash = this.hashOf(token);
    // A bad token costs no argon2; the hash is made outside the transaction, which then
    // only redeems (exactly one concurrent redemption wins) and writes.
    const valid = await this.tickets.peek(
      this.transactions.db.tenant(ctx.tenantId),
      'password_reset',
      tokenHash,
    );
    if (valid === undefined) throw invalidTicket();
    const passwordHash = await this.passwords.hash(ctx, password);
    const customer = await this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const customerId = await this.tickets.redeem(tenant, 'password_reset', tokenHash);
      if (customerId === undefined) throw invalidTicket();
      // Held until commit: a login or change racing the reset waits, then sees the new hash.
      if (!(await this.customers.lockForUpdate(tenant, customerId))) throw invalidTicket();
      await this.customers.setPasswordHash(tenant, customerId, passwordHash);
      await this.sessions.endAll(db, ctx.tenantId, customerId);
      return this.customers.byId(tenant, customerId);
    });
    if (!customer) throw invalidTicket();
    await this.limiter.clear(
      this.failuresPerEmail,
      emailKey(this.secrets.pepper, ctx.tenantId, customer.email_key),
    );
    return toCustomerDto(customer);
  }

  /** A string that cannot be one of our tokens is refused before any lookup. */
  private hashOf(token: string): Buffer {
    if (!TICKET_TOKEN_FORMAT.test(token)) throw invalidTicket();
    return hashTicketToken(token, this.secrets.pepper);
  }
}

function invalidTicket(): AppError {
  return new AppError(
    'invalid_ticket',
    'The token is unknown, used, expired or superseded by a newer one',
  );
}
