import { ApiProperty } from '@nestjs/swagger';
import type { AppView } from '../app.mapper.js';

/** An app as anyone may see it (admin CLI, its own admin-action events): never its secret. */
export class AppViewDto implements AppView {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty({ type: 'integer' }) tenant_id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() client_id!: string;
  @ApiProperty({ type: [String] }) approved_scopes!: string[];
  @ApiProperty() active!: boolean;
  @ApiProperty({ description: 'The last four characters of the client secret' })
  secret_last4!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
