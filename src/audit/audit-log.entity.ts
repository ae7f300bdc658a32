import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('audit_log')
export class AuditLogEntry {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: number;

  @Column('bigint', { name: 'tenant_id', nullable: true })
  tenantId!: number | null;

  @Column('text')
  actor!: string;

  @Column('text')
  action!: string;

  @Column('text', { name: 'target_type' })
  targetType!: string;

  @Column('text', { name: 'target_id' })
  targetId!: string;

  /** Never holds a secret: callers pass only what an auditor may read. */
  @Column('jsonb')
  details!: object;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
