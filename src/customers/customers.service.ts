import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessTokenIssuer } from '../auth/access-token-issuer.service.js';
import { publishCredentialsEvent } from '../auth/credentials-events.js';
import type { RequestContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { RateLimiter, type RateLimitRule } from '../common/rate-limit/rate-limiter.service.js';
import { AppConfig } from '../config/app-config.js';
import { CustomersRepository, type CustomerRow } from './customers.repository.js';
import type {
  CustomerDto,
  LoginDto,
  LoginResponseDto,
  RegisterCustomerDto,
} from './dto/customer.dto.js';
import { PasswordHasher } from './password-hasher.js';

/** The scopes a session can carry; it gets those the logging-in app token holds. */
const SESSION_SCOPES = ['customer:read', 'order:read'];

@Injectable()
export class CustomersService implements OnModuleInit {
  /** Verified against when the email is unknown, so both failures cost one argon2 verify. */
  private dummyHash = '';
  private readonly perEmail: RateLimitRule;
  private readonly perAddress: RateLimitRule;

  constructor(
    private readonly customers: CustomersRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenIssuer,
    private readonly limiter: RateLimiter,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    const windowSeconds = config.LOGIN_FAILURE_WINDOW_SECONDS;
    this.perEmail = {
      policy: 'login-email',
      limit: config.LOGIN_FAILURES_PER_EMAIL,
      windowSeconds,
    };
    this.perAddress = {
      policy: 'login-address',
      limit: config.LOGIN_FAILURES_PER_ADDRESS,
      windowSeconds,
    };
  }

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.hasher.hash(randomUUID());
  }

  async register(ctx: RequestContext, dto: RegisterCustomerDto): Promise<CustomerDto> {
    const passwordHash = await this.hasher.hash(dto.password);
    const row = await this.customers.insert(this.dataSource.manager, ctx.tenantId, {
      name: dto.name,
      email: dto.email,
      phone: dto.phone,
      passwordHash,
    });
    if (!row) {
      throw new AppError('email_taken', 'A customer with this email is already registered', {
        details: [{ field: 'email', message: 'is already registered' }],
      });
    }
    return toCustomerDto(row);
  }

  /**
   * Unknown email and wrong password answer the same 401 after the same work. Failures are
   * counted per (tenant, email) and per address; a blocked key gets 429 before any check.
   */
  async login(ctx: RequestContext, dto: LoginDto, address: string): Promise<LoginResponseDto> {
    const emailKey = `${ctx.tenantId}:${dto.email.toLowerCase()}`;
    this.limiter.assertNotBlocked(this.perAddress, address);
    this.limiter.assertNotBlocked(this.perEmail, emailKey);

    const m = this.dataSource.manager;
    const customer = await this.customers.byEmail(m, ctx.tenantId, dto.email);
    const valid = await this.hasher.verify(customer?.password_hash ?? this.dummyHash, dto.password);
    if (!customer || !valid) {
      await this.limiter.hit(this.perEmail, emailKey);
      await this.limiter.hit(this.perAddress, address);
      throw new AppError('invalid_credentials', 'The email or password is incorrect');
    }
    if (this.hasher.needsRehash(customer.password_hash)) {
      await this.customers.setPasswordHash(
        m,
        ctx.tenantId,
        customer.id,
        await this.hasher.hash(dto.password),
      );
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

  async me(ctx: RequestContext): Promise<CustomerDto> {
    const row = await this.customers.byId(this.dataSource.manager, ctx.tenantId, ctx.customerId!);
    if (!row) throw new AppError('not_found', 'customer not found');
    return toCustomerDto(row);
  }

  /** Kills this session on every instance (NOTIFY at commit). */
  async logout(ctx: RequestContext): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await this.customers.revokeSession(m, ctx.tenantId, ctx.tokenId);
      await publishCredentialsEvent(m, { kind: 'session', id: ctx.tokenId });
    });
  }
}

function toCustomerDto(row: CustomerRow): CustomerDto {
  return { id: row.id, name: row.name, email: row.email, phone: row.phone };
}
