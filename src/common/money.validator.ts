import { registerDecorator, type ValidationOptions } from 'class-validator';
import { MAX_MINOR_DIGITS } from './currency.js';
import { MAX_MINOR_UNITS } from './money.js';

const DECIMALS = /^\d+(?:\.(\d+))?$/;

/**
 * A JSON number that can be an amount in some tenant currency: non-negative, at most the
 * most minor digits any has (3), at most 10^13. The tenant's currency is not known yet here:
 * the service checks the amount against it (money.ts requireAmounts), with the same error shape.
 */
export function IsMoneyAmount(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isMoneyAmount',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `must be a non-negative number with at most ${MAX_MINOR_DIGITS} decimals; the tenant currency's minor digits decide how many`,
        ...options,
      },
      validator: { validate: isPossibleAmount },
    });
  };
}

function isPossibleAmount(value: unknown): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return false;
  // Beyond 10^13 no currency holds it: money.ts then says so with the currency's figures.
  if (value > MAX_MINOR_UNITS) return true;
  const match = DECIMALS.exec(String(value));
  return match !== null && (match[1] ?? '').length <= MAX_MINOR_DIGITS;
}
