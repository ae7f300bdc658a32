import { ValidationPipe } from '@nestjs/common';
import { validationFailed } from '../errors/validation-error.factory.js';

/**
 * The validation of every `@Body`, `@Query` and `@Param` (`@Body(validated)`): whitelisted,
 * unknown fields refused, transformed into the DTO class, errors in the shape of
 * docs/BEHAVIOUR.md#errors.
 *
 * Per parameter, not global: a global pipe also runs on every custom parameter decorator
 * (`@Ctx`, `@IdParam`), where it has nothing to do but costs Nest two async pipe chains on
 * every request. validated.spec.ts fails for a route parameter without it.
 */
export const validated = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: validationFailed,
  validationError: { target: false, value: false },
});
