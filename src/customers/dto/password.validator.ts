import { registerDecorator, type ValidationOptions } from 'class-validator';
import { passwordProblem } from '../password-policy.js';

/** The password policy as a class-validator rule; the message never contains the password. */
export function IsAcceptablePassword(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isAcceptablePassword',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && passwordProblem(value) === undefined,
        defaultMessage: (args) =>
          `${args?.property ?? 'password'} ${typeof args?.value === 'string' ? passwordProblem(args.value) : 'must be a string'}`,
      },
    });
  };
}
