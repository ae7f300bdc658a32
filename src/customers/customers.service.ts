import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { AppContext, CustomerContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ExactRateLimiter } from '../rate-limit/exact-rate-limiter.service.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { Transactions } from '../database/transactions.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { AppConfig } from '../config/app-config.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { toCustomerDto } from './customer.mapper.js';
import { CustomerSessions } from '../auth/customer-sessions.service.js';
import { CustomerRefresh } from './customer-refresh.service.js';
import { CustomersRepository, type CustomerRow } from './customers.repository.js';
import type {
  CustomerDto,
  LoginDto,
  LoginResponseDto,
  RegisterCustomerDto,
} from './dto/customer.dto.js';
import type { ChangePasswordDto } from './dto/ticket.dto.js';
import { emailKey, loginLimits } from './login-limits.js';
import { PasswordWork, SERVICE_WORK } from './password-work.service.js';

type Reservation = [RateLimitRule, string];

@Injectable()
export class CustomersService implements OnModuleInit {
  /** Verified against when the email is unknown, so both failures cost one argon2 verify. */
  private dummyHash = '';
  private readonly failuresPerEmail: RateLimitRule;
  private readonly failuresPerCustomerIp: RateLimitRule;
  private readonly registrationsPerCustomerIp: RateLimitRule;

  constructor(
    private readonly customers: CustomersRepository,
    private readonly passwords: PasswordWork,
    private readonly limiter: ExactRateLimiter,
    private readonly transactions: Transactions,
    private readonly sessions: CustomerSessions,
    private readonly config: AppConfig,
    private readonly events: OutboxRepository,
    private readonly refresh: CustomerRefresh,
    private readonly secrets: ServerSecrets,
  ) {
    const limits = loginLimits(config);
    this.failuresPerEmail = limits.failuresPerEmail;
    this.failuresPerCustomerIp = limits.failuresPerCustomerIp;
    this.registrationsPerCustomerIp = limits.registrationsPerCustomerIp;
  }

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.passwords.hash(SERVICE_WORK, randomUUID());
  }

  /**
   * Counted per (tenant, X-Customer-IP) when the app passes it; a taken email is answered
   * before any hashing, so refused registrations cost no argon2.
   */
  async register(
    ctx: AppContext,
    dto: RegisterCustomerDto,
    customerIp: string | undefined,
  ): Promise<CustomerDto> {
    if (customerIp !== undefined) {
      await this.limiter.reserve(this.registrationsPerCustomerIp, `${ctx.tenantId}:${customerIp}`);
    }
    if (await this.customers.byEmail(this.transactions.db.tenant(ctx.tenantId), dto.email)) {
      throw emailTaken();
    }
    const passwordHash = await this.passwords.hash(ctx, dto.password);
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const row = await this.customers.insert(tenant, {
        name: dto.name,
        email: dto.email,
        phone: dto.phone,
        passwordHash,
      });
      // Registered by a concurrent request between the check and the insert.
      if (!row) throw emailTaken();
      const customer = toCustomerDto(row);
      await this.events.append(tenant, [{ type: 'customer.created', data: { object: customer } }]);
      return customer;
    });
  }

  /**
   * Unknown email and wrong password answer the same 401 after the same work. Each attempt
   * first reserves its place in the failure counters, per (tenant, email) and per (tenant,
   * X-Customer-IP) when given, atomically and before any argon2: a refused attempt costs
   * nothing, and a concurrent burst cannot try more passwords than the limit. A successful
   * login hands its reservations back; a failed one leaves them counted.
   */
  async login(
    ctx: AppContext,
    dto: LoginDto,
    customerIp: string | undefined,
  ): Promise<LoginResponseDto> {
    const lookup = await this.customers.lookupForLogin(
      this.transactions.db.tenant(ctx.tenantId),
      dto.email,
    );
    const reservations: Reservation[] = [
      [this.failuresPerEmail, emailKey(this.secrets.pepper, ctx.tenantId, lookup.emailKey)],
    ];
    if (customerIp !== undefined) {
      reservations.push([this.failuresPerCustomerIp, `${ctx.tenantId}:${customerIp}`]);
    }
    await this.reserveAll(reservations);

    let valid: boolean;
    try {
      valid = await this.passwords.verify(
        ctx,
        lookup.customer?.password_hash ?? this.dummyHash,
        dto.password,
      );
    } catch (error) {
      // Not an attempt at a password (busy): it does not count.
      await this.refundAll(reservations);
      throw error;
    }
    if (!lookup.customer || !valid) {
      throw new AppError('invalid_credentials', 'The email or password is incorrect');
    }
    await this.refundAll(reservations);
    return this.openSession(ctx, lookup.customer, dto.password);
  }

  async me(ctx: CustomerContext): Promise<CustomerDto> {
    const row = await this.customers.byId(
      this.transactions.db.tenant(ctx.tenantId),
      ctx.customerId,
    );
    if (!row) throw new AppError('not_found', 'customer not found');
    return toCustomerDto(row);
  }

  /**
   * A wrong current password is a failed login (counted per email, reserved before argon2,
   * as at login); on success every other session of the customer ends.
   */
  async changePassword(ctx: CustomerContext, dto: ChangePasswordDto): Promise<void> {
    const customer = await this.customers.byId(
      this.transactions.db.tenant(ctx.tenantId),
      ctx.customerId,
    );
    if (!customer) throw new AppError('not_found', 'customer not found');
    const reservation: Reservation[] = [
      [this.failuresPerEmail, emailKey(this.secrets.pepper, ctx.tenantId, customer.email_key)],
    ];
    await this.reserveAll(reservation);
    let valid: boolean;
    try {
      valid = await this.passwords.verify(ctx, customer.password_hash, dto.current_password);
    } catch (error) {
      await this.refundAll(reservation);
      throw error;
    }
    if (!valid) {
      throw new AppError('validation_failed', 'current_password is not the current password', {
        details: [{ field: 'current_password', message: 'is not the current password' }],
      });
    }
    await this.refundAll(reservation);
    const passwordHash = await this.passwords.hash(ctx, dto.new_password);
    await this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      // Locks in the order of every path that ends sessions: the customer (the hash), its
      // chains, its sessions; this session last. A reset, logout-all or revocation may have
      // ended this session while the passwords were hashed: then nothing changes (401, the
      // unit of work rolls back).
      const changed = await this.customers.replacePasswordHash(
        tenant,
        customer.id,
        customer.password_hash,
        passwordHash,
      );
      if (changed) await this.sessions.endAll(db, ctx.tenantId, customer.id, ctx.tokenId);
      if (!(await this.customers.sessionIsLive(tenant, ctx.tokenId))) {
        throw new AppError('unauthenticated', 'The session has ended', {
          headers: { 'www-authenticate': 'Bearer realm="api", error="invalid_token"' },
        });
      }
      if (!changed) {
        throw new AppError('validation_failed', 'current_password is not the current password', {
          details: [{ field: 'current_password', message: 'is not the current password' }],
        });
      }
    });
  }

  /** Ends every session of the customer, this one included, on every instance. */
  async logoutAll(ctx: CustomerContext): Promise<void> {
    await this.transactions.run((db) => this.sessions.endAll(db, ctx.tenantId, ctx.customerId));
  }

  /**
   * Kills this session on every instance (NOTIFY at commit), and the refresh chain it came
   * from with every session of that chain.
   */
  async logout(ctx: CustomerContext): Promise<void> {
    await this.transactions.run((db) =>
      this.sessions.logout(db, ctx.tenantId, ctx.customerId, ctx.tokenId),
    );
  }

  private async openSession(
    ctx: AppContext,
    customer: CustomerRow,
    password: string,
  ): Promise<LoginResponseDto> {
    const tenant = this.transactions.db.tenant(ctx.tenantId);
    let passwordHash = customer.password_hash;
    if (this.passwords.needsRehash(passwordHash)) {
      const stronger = await this.passwords.hash(ctx, password);
      if (await this.customers.replacePasswordHash(tenant, customer.id, passwordHash, stronger)) {
        passwordHash = stronger;
      }
    }
    // The password changed while it was being checked: the old one opens nothing (401).
    return this.refresh.openForLogin(ctx, customer, passwordHash);
  }

  /** Reserves every key or none: a refusal hands back what was already taken. */
  private async reserveAll(reservations: Reservation[]): Promise<void> {
    const taken: Reservation[] = [];
    try {
      for (const [rule, key] of reservations) {
        await this.limiter.reserve(rule, key);
        taken.push([rule, key]);
      }
    } catch (error) {
      await this.refundAll(taken);
      throw error;
    }
  }

  private async refundAll(reservations: Reservation[]): Promise<void> {
    await Promise.all(reservations.map(([rule, key]) => this.limiter.refund(rule, key)));
  }
}

function emailTaken(): AppError {
  return new AppError('email_taken', 'A customer with this email is already registered', {
    details: [{ field: 'email', message: 'is already registered' }],
  });
}
