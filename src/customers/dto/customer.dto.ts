import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional } from 'class-validator';
import { Chars, Line } from '../../common/validation.js';
import { IsAcceptablePassword } from './password.validator.js';

export class RegisterCustomerDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Ada Lovelace' })
  @Line(1, 200)
  name!: string;

  @ApiProperty({
    format: 'email',
    maxLength: 254,
    description: 'Unique per tenant, any case',
    example: 'ada@example.com',
  })
  @IsEmail()
  @Chars(3, 254)
  email!: string;

  @ApiProperty({
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description:
      '8–128 characters, no composition rules, common passwords refused; used exactly as sent',
    example: 'plum-Orbit-42-lantern',
  })
  @IsAcceptablePassword()
  password!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: '+1 555 0100' })
  @IsOptional()
  @Line(1, 200)
  phone?: string;
}

export class LoginDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  @IsEmail()
  @Chars(3, 254)
  email!: string;

  @ApiProperty({ format: 'password', example: 'plum-Orbit-42-lantern' })
  @Chars(1, 1024)
  password!: string;
}

export class CustomerDto {
  @ApiProperty({ type: 'integer', example: 17 }) id!: number;
  @ApiProperty({ example: 'Ada Lovelace' }) name!: string;
  @ApiProperty({ example: 'ada@example.com' }) email!: string;
  @ApiProperty({ type: String, nullable: true, example: '+1 555 0100' }) phone!: string | null;
  @ApiProperty({
    description:
      'Whether the customer proved the address (verify-email, or support staff). Until then no order is linked to them by email.',
    example: true,
  })
  email_verified!: boolean;
}

export class LoginResponseDto {
  @ApiProperty({
    description: 'Customer session token (JWT, typ customer-session+jwt), used as a Bearer token',
    example:
      'eyJhbGciOiJFUzI1NiIsInR5cCI6ImN1c3RvbWVyLXNlc3Npb24rand0Iiwia2lkIjoiM3FWN3JRYngifQ.eyJpc3MiOiJodHRwOi8vbG9jYWxob3N0OjMwMDAi…',
  })
  token!: string;
  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' }) token_type!: 'Bearer';
  @ApiProperty({
    type: 'integer',
    description: 'Seconds until the session token expires',
    example: 86400,
  })
  expires_in!: number;
  @ApiProperty({
    description: 'Granted: customer:read and/or order:read, as far as the app token held them',
    example: 'customer:read order:read',
  })
  scope!: string;
  @ApiProperty({
    description:
      'Opaque, single use: `POST /v1/customers/token` trades it for a new session token and a new refresh token. Keep it secret; presenting a used one ends the whole chain of the login',
    example: 'rt_3Vq5mYk2c1b0ZxW9aQ7rT4uP8sD6fG2hJ1kL0nM5bV3',
  })
  refresh_token!: string;
  @ApiProperty({
    type: 'integer',
    description:
      'Seconds the refresh token stays usable: the sooner of the chain’s end (`CUSTOMER_REFRESH_TTL` after login) and its idle end (`CUSTOMER_REFRESH_IDLE` after the last use)',
    example: 604800,
  })
  refresh_expires_in!: number;
  @ApiProperty({ type: CustomerDto }) customer!: CustomerDto;
}

export class RefreshTokenDto {
  @ApiProperty({ description: 'A refresh token from login or from the last refresh' })
  @Chars(1, 512)
  refresh_token!: string;
}
