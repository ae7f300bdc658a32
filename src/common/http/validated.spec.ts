import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { describe, expect, it } from 'vitest';
import { validated } from './validated.js';

const SRC = join(import.meta.dirname, '..', '..');
/** Parameters whose value comes from the client and must pass the DTO validation. */
const CLIENT_INPUT = new Set<number>([
  RouteParamtypes.BODY,
  RouteParamtypes.QUERY,
  RouteParamtypes.PARAM,
]);

type Constructor = abstract new (...args: never[]) => unknown;

async function controllers(): Promise<Constructor[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.controller.ts'),
  );
  const found: Constructor[] = [];
  for (const file of files) {
    const exports = (await import(join(SRC, file))) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (typeof value === 'function' && Reflect.hasMetadata(PATH_METADATA, value)) {
        found.push(value as Constructor);
      }
    }
  }
  return found;
}

describe('validated (the per-parameter ValidationPipe)', () => {
  it('is on every @Body, @Query and @Param of every controller', async () => {
    const found = await controllers();
    expect(found.length).toBeGreaterThanOrEqual(8);
    const missing: string[] = [];
    let checked = 0;
    for (const controller of found) {
      const proto = controller.prototype as object;
      for (const method of Object.getOwnPropertyNames(proto)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
          string,
          { index: number; pipes: unknown[] }
        >;
        for (const [key, arg] of Object.entries(args)) {
          if (!CLIENT_INPUT.has(Number(key.split(':')[0]))) continue;
          checked += 1;
          if (!arg.pipes.includes(validated))
            missing.push(`${controller.name}.${method} #${arg.index}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(18);
  });
});
