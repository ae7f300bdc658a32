import { ApiProperty } from '@nestjs/swagger';
import { PageMeta } from '../../common/pagination.js';

export class ProductDto {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty() sku!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'In the tenant currency, at most 2 decimals', example: 19.99 })
  price!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ description: 'Inactive products cannot be ordered' }) active!: boolean;
}

export class ProductPageDto {
  @ApiProperty({ type: [ProductDto] }) data!: ProductDto[];
  @ApiProperty({ type: PageMeta }) meta!: PageMeta;
}
