import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { IsOptional, IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { validated } from './validated.js';

const SRC = join(import.meta.dirname, '..', '..');
/** Parameters whose value comes from the client and must pass the DTO validation. */
const CLIENT_INPUT = new Set<number>([
  RouteParamtypes.BODY,
  RouteParamtypes.QUERY,
  RouteParamtypes.PARAM,
]);

/** Bodies and queries validated by hand on purpose, not through a DTO class. */
// The OAuth endpoints read their bodies themselves, to answer OAuth error codes.
const HAND_VALIDATED = new Set([
  'TokenController.token #0',
  'ClientTokensController.revoke #0',
  'ClientTokensController.introspect #0',
]);
const NOT_A_DTO = new Set<unknown>([Object, String, Number, Boolean, Array, undefined]);

type Constructor = abstract new (...args: never[]) => unknown;

const sourceFiles = (): string[] =>
  readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'),
  );

async function controllers(): Promise<Constructor[]> {
  const files = sourceFiles().filter((f) => f.endsWith('.controller.ts'));
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
  it('finds every controller: they all live in *.controller.ts files', () => {
    const elsewhere = sourceFiles().filter(
      (f) =>
        !f.endsWith('.controller.ts') &&
        readFileSync(join(SRC, f), 'utf8').includes('@Controller('),
    );
    expect(elsewhere).toEqual([]);
  });

  it('is on every @Body, @Query and @Param of every controller', async () => {
    const found = await controllers();
    expect(found.length).toBeGreaterThanOrEqual(8);
    const missing: string[] = [];
    const untyped: string[] = [];
    let checked = 0;
    for (const controller of found) {
      const proto = controller.prototype as object;
      for (const method of Object.getOwnPropertyNames(proto)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
          string,
          { index: number; pipes: unknown[] }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', proto, method) ?? []) as unknown[];
        for (const [key, arg] of Object.entries(args)) {
          const type = Number(key.split(':')[0]) as RouteParamtypes;
          if (!CLIENT_INPUT.has(type)) continue;
          checked += 1;
          const name = `${controller.name}.${method} #${arg.index}`;
          if (!arg.pipes.includes(validated)) missing.push(name);
          // A body or query typed as a plain object (an interface, `unknown`, a type-only
          // import) passes the pipe unvalidated: it must be a DTO class.
          const isBodyOrQuery = type === RouteParamtypes.BODY || type === RouteParamtypes.QUERY;
          if (isBodyOrQuery && NOT_A_DTO.has(types[arg.index]) && !HAND_VALIDATED.has(name)) {
            untyped.push(name);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    expect(untyped).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(18);
  });
});

class SampleBody {
  @IsOptional()
  @IsString()
  note?: string;
}

describe('a JSON body where a DTO expects an object', () => {
  const transform = (value: unknown, metatype: unknown) =>
    validated.transform(value, { type: 'body', metatype: metatype as never });

  it.each([null, [], [{}], 7, 0, 'x', '', true, false])(
    '%j is 400 validation_failed, never taken as an empty object',
    async (value) => {
      await expect(transform(value, SampleBody)).rejects.toMatchObject({
        code: 'validation_failed',
        options: { details: [{ field: 'body', message: 'must be a JSON object' }] },
      });
    },
  );

  it('an object, no body at all, and hand-validated bodies pass on', async () => {
    await expect(transform({}, SampleBody)).resolves.toBeInstanceOf(SampleBody);
    await expect(transform(undefined, SampleBody)).resolves.toBeInstanceOf(SampleBody);
    await expect(transform(null, Object)).resolves.toBeNull();
  });
});
