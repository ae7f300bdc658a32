import { ApiProperty } from '@nestjs/swagger';
import type { AppView } from '../app.mapper.js';

/** An app as anyone may see it (admin CLI, its own admin-action events): never its secret. */
export class AppViewDto implements AppView {
  @ApiProperty({ type: 'integer', example: 5 }) id!: number;
  @ApiProperty({ type: 'integer', example: 1 }) tenant_id!: number;
  @ApiProperty({ example: 'Acme ERP connector' }) name!: string;
  @ApiProperty({ example: 'app_X3qZ6YTWil-WETcK' }) client_id!: string;
  @ApiProperty({ type: [String], example: ['orders:read', 'orders:write'] })
  approved_scopes!: string[];
  @ApiProperty({ example: true }) active!: boolean;
  @ApiProperty({ description: 'The last four characters of the client secret', example: 'nTbE' })
  secret_last4!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:15:00.000Z' }) created_at!: string;
}
