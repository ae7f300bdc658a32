import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { DataSource } from 'typeorm';
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
  echo(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('boom')
  boom(): never {
    throw new Error('secret internal detail: SELECT * FROM apps');
  }

  @Get('item/:id')
  item(@Param('id') id: string): { id: string } {
    return { id };
  }

  @Get('data-exception')
  async dataException(): Promise<never> {
    await this.dataSource.query("SELECT 'x'::int");
    throw new Error('unreachable');
  }

  @Get('db-down')
  dbDown(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
