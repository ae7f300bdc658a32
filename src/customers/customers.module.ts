import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module.js';
import { CustomersController } from './customers.controller.js';
import { CustomersRepository } from './customers.repository.js';
import { CustomersService } from './customers.service.js';
import { Argon2PasswordHasher, PasswordHasher } from './password-hasher.js';
import { PasswordWork } from './password-work.service.js';

@Module({
  imports: [OrdersModule],
  controllers: [CustomersController],
  providers: [
    CustomersService,
    CustomersRepository,
    PasswordWork,
    { provide: PasswordHasher, useClass: Argon2PasswordHasher },
  ],
})
export class CustomersModule {}
