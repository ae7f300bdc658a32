import { registerDecorator, type ValidationOptions } from 'class-validator';
import { toMinorUnits } from './money.js';

/** A JSON number that is a non-negative amount with at most 2 decimals. */
export function IsMoneyAmount(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isMoneyAmount',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must be a non-negative number with at most 2 decimals', ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && toMinorUnits(value) !== undefined,
      },
    });
  };
}
