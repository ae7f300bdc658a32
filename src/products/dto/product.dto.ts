import { ApiProperty } from '@nestjs/swagger';
import { PageMeta } from '../../common/pagination.js';

export class ProductDto {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty({ example: 'TSHIRT-BLK-M' }) sku!: string;
  @ApiProperty({ example: 'T-shirt, black, M' }) name!: string;
  @ApiProperty({ description: 'In the tenant currency, at most 2 decimals', example: 19.99 })
  price!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ description: 'Inactive products cannot be ordered', example: true })
  active!: boolean;
}

export class ProductPageDto {
  @ApiProperty({ type: [ProductDto] }) data!: ProductDto[];
  @ApiProperty({ type: PageMeta }) meta!: PageMeta;
}
