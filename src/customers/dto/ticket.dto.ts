import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString } from 'class-validator';
import { Chars } from '../../common/validation.js';
import { TICKET_TYPES, type TicketType } from '../customer-tickets.repository.js';
import { IsAcceptablePassword } from './password.validator.js';

export class CreateTicketDto {
  @ApiProperty({ enum: TICKET_TYPES, example: 'email_verification' })
  @IsIn(TICKET_TYPES)
  type!: TicketType;

  @ApiProperty({
    format: 'email',
    maxLength: 254,
    description: 'A registered customer (any case)',
    example: 'ada@example.com',
  })
  @IsEmail()
  @Chars(3, 254)
  email!: string;
}

export class TicketDto {
  @ApiProperty({ enum: TICKET_TYPES, example: 'email_verification' }) type!: TicketType;
  @ApiProperty({
    description:
      'Single use, shown only here: deliver it in your own email (a link to your storefront). ' +
      'Stored only as a hash; a newer ticket of the type supersedes this one.',
    example: 'tkt_6mJ0sVbE3b8cWcJ2m3yq0v8u1y5J8p6m8w9cX2sQ1aE',
  })
  token!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-24T10:15:00.000Z' }) expires_at!: string;
  @ApiProperty({ type: 'integer', example: 17 }) customer_id!: number;
}

export class VerifyEmailDto {
  @ApiProperty({
    description: 'The email_verification ticket token',
    example: 'tkt_6mJ0sVbE3b8cWcJ2m3yq0v8u1y5J8p6m8w9cX2sQ1aE',
  })
  @IsString()
  token!: string;
}

export class ResetPasswordDto {
  @ApiProperty({
    description: 'The password_reset ticket token',
    example: 'tkt_6mJ0sVbE3b8cWcJ2m3yq0v8u1y5J8p6m8w9cX2sQ1aE',
  })
  @IsString()
  token!: string;

  @ApiProperty({
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description: 'The registration policy: 8–128 characters, common passwords refused',
    example: 'velvet-Harbor-17-quill',
  })
  @IsAcceptablePassword()
  password!: string;
}

export class ChangePasswordDto {
  @ApiProperty({ format: 'password', example: 'plum-Orbit-42-lantern' })
  @Chars(1, 1024)
  current_password!: string;

  @ApiProperty({
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description: 'The registration policy: 8–128 characters, common passwords refused',
    example: 'velvet-Harbor-17-quill',
  })
  @IsAcceptablePassword()
  new_password!: string;
}
