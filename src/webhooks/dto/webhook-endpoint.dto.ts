import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  ValidateIf,
} from 'class-validator';
import { PageMeta } from '../../common/pagination.js';
import { Line, Text } from '../../common/validation.js';
import { EVENT_TYPES, type EventType } from '../../outbox/event-types.js';

const URL_DOC =
  'https only (http when WEBHOOK_ALLOW_HTTP=true); no credentials; a host resolving to a loopback, private, link-local or metadata address is refused (here and at every delivery) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true';
const TYPES_DOC = 'The event types sent to this endpoint (1 or more, distinct)';

function EventTypeList(): PropertyDecorator {
  return (target, key) => {
    for (const rule of [
      IsArray(),
      ArrayMinSize(1),
      ArrayMaxSize(EVENT_TYPES.length),
      ArrayUnique(),
      IsIn(EVENT_TYPES, {
        each: true,
        message: `each entry must be one of: ${EVENT_TYPES.join(', ')}`,
      }),
    ]) {
      rule(target, key);
    }
  };
}

export class CreateWebhookEndpointDto {
  @ApiProperty({ maxLength: 2048, description: URL_DOC, example: 'https://erp.example.com/hooks' })
  @Line(1, 2048)
  url!: string;

  @ApiProperty({
    enum: EVENT_TYPES,
    isArray: true,
    description: TYPES_DOC,
    example: ['order.created', 'order.status_changed'],
  })
  @EventTypeList()
  event_types!: EventType[];

  @ApiPropertyOptional({ maxLength: 500, example: 'ERP order sync' })
  @IsOptional()
  @Text(0, 500)
  description?: string;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({
    maxLength: 2048,
    description: URL_DOC,
    example: 'https://erp.example.com/hooks',
  })
  @IsOptional()
  @Line(1, 2048)
  url?: string;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    description: TYPES_DOC,
    example: ['order.created', 'order.status_changed'],
  })
  @IsOptional()
  @EventTypeList()
  event_types?: EventType[];

  @ApiPropertyOptional({
    description: 'false pauses deliveries; true resumes them and clears the failure streak',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 500,
    description: 'null clears it',
    example: 'ERP order sync',
  })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @Text(0, 500)
  description?: string | null;
}

export class WebhookEndpointDto {
  @ApiProperty({ type: 'integer', example: 3 }) id!: number;
  @ApiProperty({ example: 'https://erp.example.com/hooks' }) url!: string;
  @ApiProperty({ type: String, nullable: true, example: 'ERP order sync' })
  description!: string | null;
  @ApiProperty({
    enum: EVENT_TYPES,
    isArray: true,
    example: ['order.created', 'order.status_changed'],
  })
  event_types!: EventType[];
  @ApiProperty({
    description:
      'false when paused, or disabled after 5 days of failed deliveries (endpoint.disabled)',
    example: true,
  })
  active!: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) updated_at!: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    description:
      'Signing secret (`whsec_` + base64 of 32 random bytes), shown only on creation and rotation; verify deliveries with any Standard Webhooks library',
    example: 'whsec_Ob1SIF0eTZs1j8VezkY19XLfx7aXspH7CNTkJXt/vZA=',
  })
  secret!: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) data!: WebhookEndpointDto[];
}

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export class WebhookDeliveryDto {
  @ApiProperty({ type: 'integer', example: 1201 }) id!: number;
  @ApiProperty({
    description: 'Also the `webhook-id` header of every attempt',
    example: 'evt_3f1c9a0b7d2e4c5f8a6b1c2d3e4f5a6b',
  })
  event_id!: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'order.created' }) event_type!: EventType;
  @ApiProperty({
    type: 'integer',
    description: 'Attempts made so far (requests sent), counting an attempt in flight',
    example: 2,
  })
  attempts!: number;
  @ApiProperty({ enum: DELIVERY_STATES, example: 'pending' }) state!: DeliveryState;
  @ApiProperty({ type: 'integer', nullable: true, example: 503 }) last_status_code!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'HTTP 503' }) last_error!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the last attempt began',
    example: '2026-11-23T10:15:06.000Z',
  })
  last_attempt_at!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-23T10:20:06.000Z',
  })
  next_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data!: WebhookDeliveryDto[];
  @ApiProperty({ type: PageMeta }) meta!: PageMeta;
}
