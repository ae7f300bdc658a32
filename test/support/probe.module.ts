import { Body, Controller, Get, Module, Post } from '@nestjs/common';
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
  @Post('echo')
  echo(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('boom')
  boom(): never {
    throw new Error('secret internal detail: SELECT * FROM apps');
  }

  @Get('db-down')
  dbDown(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
