import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';

class ErrorDetailDto {
  @ApiProperty({ example: 'items[0].quantity' }) field!: string;
  @ApiProperty({ example: 'must not be less than 1' }) message!: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: '`insufficient_stock` only: the short product',
  })
  product_id?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: '`insufficient_stock` only: the units of the product the order asks for',
  })
  requested?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: '`insufficient_stock` only: the units available',
  })
  available?: number;
}

/** The one error shape (docs/BEHAVIOUR.md#errors). */
export class ErrorResponseDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'validation_failed' }) error!: ErrorCode;
  @ApiProperty({ example: 'items[0].quantity must not be less than 1' }) error_description!: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto] }) details?: ErrorDetailDto[];
  @ApiPropertyOptional({
    description: 'Only on 500 internal_error',
    example: '9ab83642-4ec7-4399-a34d-5056e4e44b1d',
  })
  request_id?: string;
}

/**
 * Documents the error codes a route may answer, grouped by status so that several codes
 * sharing one status (409, 422) end up in one description.
 */
export function ApiErrors(
  errors: Partial<Record<ErrorCode, string>>,
): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, Array<[ErrorCode, string]>>();
  for (const [code, when] of Object.entries(errors) as Array<[ErrorCode, string]>) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, when]]);
  }
  return applyDecorators(
    ...[...byStatus].map(([status, rows]) =>
      ApiResponse({
        status,
        description: rows.map(([code, when]) => `\`${code}\`: ${when}`).join('; '),
        type: ErrorResponseDto,
        // One example per code, so /docs and clients show the body each one really has.
        examples: Object.fromEntries(
          rows.map(([code, when]) => [
            code,
            { summary: code, value: { error: code, error_description: sentence(when) } },
          ]),
        ),
      }),
    ),
  );
}

/** "`x` is missing" → "x is missing": a route's error text as an example error_description. */
function sentence(text: string): string {
  const plain = text.replace(/`/g, '');
  return `${plain.charAt(0).toUpperCase()}${plain.slice(1)}`;
}
