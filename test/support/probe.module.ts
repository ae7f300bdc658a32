import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { validated } from '../../src/common/http/validated.js';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsInt, IsString, Length, Min, ValidateNested } from 'class-validator';

class ProbeLine {
  @IsInt()
  @Min(1)
  quantity!: number;
}

class ProbeBody {
  @IsString()
  @Length(1, 10)
  name!: string;

  @ValidateNested({ each: true })
  @ArrayMinSize(1)
  @Type(() => ProbeLine)
  items!: ProbeLine[];
}

/** Routes that exist only in tests, to drive the error layer through real HTTP. */
@Controller('__probe')
class ProbeController {
  constructor(private readonly dataSource: DataSource) {}

  @Post('echo')
  echo(@Body(validated) body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('boom')
  boom(): never {
    throw new Error('secret internal detail: SELECT * FROM apps');
  }

  @Get('item/:id')
  item(@Param('id', validated) id: string): { id: string } {
    return { id };
  }

  @Get('data-exception')
  async dataException(): Promise<never> {
    await this.dataSource.query("SELECT 'x'::int");
    throw new Error('unreachable');
  }

  /** A CHECK constraint refusing a value that validation let through. */
  @Get('check-violation')
  async checkViolation(): Promise<never> {
    await this.dataSource.query("INSERT INTO tenants (name, currency) VALUES ('', 'USD')");
    throw new Error('unreachable');
  }

  /** A database error carrying its query, parameters (a hash, an email) and row detail. */
  @Get('query-failed')
  async queryFailed(): Promise<never> {
    await this.dataSource.query('SELECT $1::text, $2::text FROM no_such_table', [
      'victim@example.com',
      '$argon2id$v=19$m=19456,t=2,p=1$secret-hash',
    ]);
    throw new Error('unreachable');
  }

  @Get('db-down')
  dbDown(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
