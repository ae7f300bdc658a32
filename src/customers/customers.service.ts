import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AccessTokenIssuer } from '../auth/access-token-issuer.service.js';
import { publishCredentialsEvent } from '../auth/credentials-events.js';
import type { AppContext, CustomerContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { ExactRateLimiter } from '../common/rate-limit/exact-rate-limiter.service.js';
import type { RateLimitRule } from '../common/rate-limit/rate-limit-rule.js';
import { Transactions } from '../common/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { CustomersRepository, type CustomerRow } from './customers.repository.js';
import type {
  CustomerDto,
  LoginDto,
  LoginResponseDto,
  RegisterCustomerDto,
} from './dto/customer.dto.js';
import { PasswordWork } from './password-work.service.js';

/** The scopes a session can carry; it gets those the logging-in app token holds. */
const SESSION_SCOPES = ['customer:read', 'order:read'];

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
    private readonly tokens: AccessTokenIssuer,
    private readonly limiter: ExactRateLimiter,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {
    const windowSeconds = config.LOGIN_FAILURE_WINDOW_SECONDS;
    this.failuresPerEmail = {
      policy: 'login-email',
      limit: config.LOGIN_FAILURES_PER_EMAIL,
      windowSeconds,
    };
    this.failuresPerCustomerIp = {
      policy: 'login-customer-ip',
      limit: config.LOGIN_FAILURES_PER_CUSTOMER_IP,
      windowSeconds,
    };
    this.registrationsPerCustomerIp = {
      policy: 'register-customer-ip',
      limit: config.REGISTRATIONS_PER_CUSTOMER_IP,
      windowSeconds: config.REGISTRATION_WINDOW_SECONDS,
    };
  }

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.passwords.hash(randomUUID());
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
    const m = this.transactions.manager;
    if (await this.customers.byEmail(m, ctx.tenantId, dto.email)) throw emailTaken();
    const passwordHash = await this.passwords.hash(dto.password);
    const row = await this.customers.insert(m, ctx.tenantId, {
      name: dto.name,
      email: dto.email,
      phone: dto.phone,
      passwordHash,
    });
    // Registered by a concurrent request between the check and the insert.
    if (!row) throw emailTaken();
    return toCustomerDto(row);
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
    const reservations: Reservation[] = [
      [this.failuresPerEmail, `${ctx.tenantId}:${dto.email.toLowerCase()}`],
    ];
    if (customerIp !== undefined) {
      reservations.push([this.failuresPerCustomerIp, `${ctx.tenantId}:${customerIp}`]);
    }
    await this.reserveAll(reservations);

    let customer: CustomerRow | undefined;
    try {
      customer = await this.customers.byEmail(this.transactions.manager, ctx.tenantId, dto.email);
      const valid = await this.passwords.verify(
        customer?.password_hash ?? this.dummyHash,
        dto.password,
      );
      if (!valid) customer = undefined;
    } catch (error) {
      // Not an attempt at a password (busy, database down): it does not count.
      await this.refundAll(reservations);
      throw error;
    }
    if (!customer) throw new AppError('invalid_credentials', 'The email or password is incorrect');
    await this.refundAll(reservations);
    return this.openSession(ctx, customer, dto.password);
  }

  async me(ctx: CustomerContext): Promise<CustomerDto> {
    const row = await this.customers.byId(this.transactions.manager, ctx.tenantId, ctx.customerId);
    if (!row) throw new AppError('not_found', 'customer not found');
    return toCustomerDto(row);
  }

  /** Kills this session on every instance (NOTIFY at commit). */
  async logout(ctx: CustomerContext): Promise<void> {
    await this.transactions.run(async (m) => {
      const expiresAt = await this.customers.revokeSession(m, ctx.tenantId, ctx.tokenId);
      if (expiresAt) {
        await publishCredentialsEvent(m, {
          kind: 'session',
          id: ctx.tokenId,
          expiresAt: expiresAt.getTime(),
        });
      }
    });
  }

  private async openSession(
    ctx: AppContext,
    customer: CustomerRow,
    password: string,
  ): Promise<LoginResponseDto> {
    const m = this.transactions.manager;
    if (this.passwords.needsRehash(customer.password_hash)) {
      const hash = await this.passwords.hash(password);
      await this.customers.setPasswordHash(m, ctx.tenantId, customer.id, hash);
    }
    const session = {
      id: randomUUID(),
      customerId: customer.id,
      scopes: SESSION_SCOPES.filter((s) => ctx.scopes.has(s)),
      ttlSeconds: this.config.CUSTOMER_SESSION_TTL,
    };
    await this.customers.insertSession(m, ctx.tenantId, { ...session, appId: ctx.appId });
    const token = this.tokens.issueCustomerToken(
      {
        appId: ctx.appId,
        tenantId: ctx.tenantId,
        clientId: ctx.clientId,
        credentialsVersion: ctx.credentialsVersion,
      },
      session,
    );
    return {
      token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
      customer: toCustomerDto(customer),
    };
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

function toCustomerDto(row: CustomerRow): CustomerDto {
  return { id: row.id, name: row.name, email: row.email, phone: row.phone };
}
