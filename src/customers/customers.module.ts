import { Module } from '@nestjs/common';
import { TokensModule } from '../auth/tokens.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { CustomerData } from './customer-data.service.js';
import { CustomerDataRepository } from './customer-data.repository.js';
import { CustomerErasureRepository } from './customer-erasure.repository.js';
import { CustomerErasure } from './customer-erasure.service.js';
import { CustomerRefresh } from './customer-refresh.service.js';
import { CustomerTicketsRepository } from './customer-tickets.repository.js';
import { CustomerTickets } from './customer-tickets.service.js';
import { CustomerVerification } from './customer-verification.service.js';
import { CustomersController } from './customers.controller.js';
import { CustomersRepository } from './customers.repository.js';
import { CustomersService } from './customers.service.js';
import { Argon2PasswordHasher, PasswordHasher } from './password-hasher.js';
import { PasswordWork } from './password-work.service.js';

@Module({
  imports: [OrdersModule, TokensModule, OutboxModule, IdempotencyModule],
  controllers: [CustomersController],
  providers: [
    CustomersService,
    CustomersRepository,
    PasswordWork,
    CustomerRefresh,
    CustomerData,
    CustomerDataRepository,
    CustomerErasure,
    CustomerErasureRepository,
    CustomerTickets,
    CustomerTicketsRepository,
    CustomerVerification,
    { provide: PasswordHasher, useClass: Argon2PasswordHasher },
  ],
  exports: [CustomerVerification, CustomersRepository, CustomerData, CustomerErasure],
})
export class CustomersModule {}
