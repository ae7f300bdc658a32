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
import { Chars } from '../../common/validation.js';
import { EVENT_TYPES, type EventType } from '../../events/event-types.js';

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
  @Chars(1, 2048)
  url!: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true, description: TYPES_DOC })
  @EventTypeList()
  event_types!: EventType[];

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @Chars(0, 500)
  description?: string;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ maxLength: 2048, description: URL_DOC })
  @IsOptional()
  @Chars(1, 2048)
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES, isArray: true, description: TYPES_DOC })
  @IsOptional()
  @EventTypeList()
  event_types?: EventType[];

  @ApiPropertyOptional({
    description: 'false pauses deliveries; true resumes them and clears the failure streak',
  })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @Chars(0, 500)
  description?: string | null;
}

export class WebhookEndpointDto {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty() url!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: EVENT_TYPES, isArray: true }) event_types!: EventType[];
  @ApiProperty({
    description:
      'false when paused, or disabled after 5 days of failed deliveries (endpoint.disabled)',
  })
  active!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    description:
      'Signing secret (`whsec_` + base64 of 32 random bytes), shown only on creation and rotation; verify deliveries with any Standard Webhooks library',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) data!: WebhookEndpointDto[];
}

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export class WebhookDeliveryDto {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty({ description: 'Also the `webhook-id` header of every attempt' }) event_id!: string;
  @ApiProperty({ enum: EVENT_TYPES }) event_type!: EventType;
  @ApiProperty({ type: 'integer', description: 'Attempts made so far' }) attempts!: number;
  @ApiProperty({ enum: DELIVERY_STATES }) state!: DeliveryState;
  @ApiProperty({ type: 'integer', nullable: true }) last_status_code!: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_attempt_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data!: WebhookDeliveryDto[];
  @ApiProperty({ type: PageMeta }) meta!: PageMeta;
}
