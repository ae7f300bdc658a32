import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A private app: OAuth client of one tenant. */
@Entity('apps')
export class App {
  @PrimaryColumn('bigint', { name: 'tenant_id' })
  tenantId!: number;

  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: number;

  @Column('text')
  name!: string;

  @Column('text', { name: 'client_id' })
  clientId!: string;

  /** HMAC-SHA-256 of the secret under the server pepper; never leaves the database. */
  @Column('bytea', { name: 'secret_hash', select: false })
  secretHash!: Buffer;

  @Column('char', { name: 'secret_last4', length: 4 })
  secretLast4!: string;

  @Column('text', { name: 'approved_scopes', array: true })
  approvedScopes!: string[];

  @Column('boolean')
  active!: boolean;

  /** Bumped by secret rotation and scope changes; tokens issued before carry the old value. */
  @Column('integer', { name: 'credentials_version' })
  credentialsVersion!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
