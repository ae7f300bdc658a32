import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../common/pagination.js';
import { ORDER_STATUSES, type OrderStatus } from '../order-status.js';

export class ListOrdersQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ORDER_STATUSES })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;
}

export class ChangeStatusDto {
  @ApiProperty({
    enum: ORDER_STATUSES,
    description:
      'pending → paid | cancelled; paid → preparing | refunded; preparing → shipped | refunded; shipped → refunded',
  })
  @IsIn(ORDER_STATUSES)
  status!: OrderStatus;
}
