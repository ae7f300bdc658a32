import { applyDecorators, type Type as ClassType } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, ValidateNested } from 'class-validator';

/** A nested object validated as `type` (arrays, strings and null refused). */
export function NestedObject(type: () => ClassType): PropertyDecorator {
  return applyDecorators(IsObject(), ValidateNested(), Type(type));
}

/** An array of `min`..`max` objects, each validated as `type`. */
export function NestedArray(type: () => ClassType, min: number, max: number): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ArrayMinSize(min),
    ArrayMaxSize(max),
    ValidateNested({ each: true }),
    Type(type),
  );
}
