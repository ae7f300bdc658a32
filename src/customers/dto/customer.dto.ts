import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional } from 'class-validator';
import { Chars } from '../../common/validation.js';
import { IsAcceptablePassword } from './password.validator.js';

export class RegisterCustomerDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Chars(1, 200)
  name!: string;

  @ApiProperty({ format: 'email', maxLength: 254, description: 'Unique per tenant, any case' })
  @IsEmail()
  @Chars(3, 254)
  email!: string;

  @ApiProperty({
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description:
      '8–128 characters, no composition rules, common passwords refused; used exactly as sent',
  })
  @IsAcceptablePassword()
  password!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @Chars(1, 200)
  phone?: string;
}

export class LoginDto {
  @ApiProperty({ format: 'email' })
  @IsEmail()
  @Chars(3, 254)
  email!: string;

  @ApiProperty({ format: 'password' })
  @Chars(1, 1024)
  password!: string;
}

export class CustomerDto {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) phone!: string | null;
  @ApiProperty({
    description:
      'Whether the customer proved the address (verify-email, or support staff). Until then no order is linked to them by email.',
  })
  email_verified!: boolean;
}

export class LoginResponseDto {
  @ApiProperty({
    description: 'Customer session token (JWT, typ customer-session+jwt), used as a Bearer token',
  })
  token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ type: 'integer', description: 'Seconds until the session token expires' })
  expires_in!: number;
  @ApiProperty({
    description: 'Granted: customer:read and/or order:read, as far as the app token held them',
  })
  scope!: string;
  @ApiProperty({ type: CustomerDto }) customer!: CustomerDto;
}
