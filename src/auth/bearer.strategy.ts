import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingHttpHeaders } from 'node:http';
import { Strategy } from 'passport-http-bearer';
import { AccessTokenVerifier } from './access-token-verifier.service.js';
import type { RequestContext } from './request-context.js';

/**
 * passport-http-bearer also reads `access_token` from the query string and the body; the
 * service accepts the Authorization header only (docs/BEHAVIOUR.md#access-tokens), so the
 * strategy sees nothing else.
 */
type VerifyCallback = (token: string, done: (error: unknown, user?: unknown) => void) => void;
// The published typings drag in Express and Koa request types; this is the part we use.
const BearerBase = Strategy as unknown as new (verify: VerifyCallback) => {
  authenticate(req: unknown, options?: object): void;
};

class HeaderOnlyBearerStrategy extends BearerBase {
  override authenticate(req: { headers: IncomingHttpHeaders }, options?: object): void {
    super.authenticate({ headers: { authorization: req.headers.authorization } }, options);
  }
}

@Injectable()
export class BearerStrategy extends PassportStrategy(HeaderOnlyBearerStrategy, 'bearer') {
  constructor(private readonly verifier: AccessTokenVerifier) {
    super();
  }

  validate(token: string): Promise<RequestContext> {
    return this.verifier.verify(token);
  }
}
