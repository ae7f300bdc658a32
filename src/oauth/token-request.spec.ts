import { describe, expect, it } from 'vitest';
import { parseTokenRequest } from './token-request.js';

const basic = (id: string, secret: string, encode = true) => {
  const e = (s: string) => (encode ? encodeURIComponent(s).replace(/%20/g, '+') : s);
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`).toString('base64')}`;
};

describe('parseTokenRequest', () => {
  const post = {
    grant_type: 'client_credentials',
    client_id: 'app_1',
    client_secret: 's',
    scope: 'orders:read',
  };

  it('reads client_secret_post', () => {
    expect(parseTokenRequest(post, undefined)).toEqual({
      clientId: 'app_1',
      clientSecret: 's',
      scope: 'orders:read',
      usedBasic: false,
    });
  });

  it('reads client_secret_basic with form-decoding of both parts (RFC 6749 2.3.1)', () => {
    const parsed = parseTokenRequest(
      { grant_type: 'client_credentials' },
      basic('app_1', 'a b+c%/é'),
    );
    expect(parsed).toEqual({
      clientId: 'app_1',
      clientSecret: 'a b+c%/é',
      scope: undefined,
      usedBasic: true,
    });
  });

  it('checks the grant type before anything else', () => {
    expect(() => parseTokenRequest({}, undefined)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => parseTokenRequest({ grant_type: 'password' }, undefined)).toThrow(
      expect.objectContaining({ code: 'unsupported_grant_type' }),
    );
    // Even with both credential forms present, a wrong grant type is reported first.
    expect(() =>
      parseTokenRequest({ ...post, grant_type: 'authorization_code' }, basic('a', 'b')),
    ).toThrow(expect.objectContaining({ code: 'unsupported_grant_type' }));
  });

  it('refuses credentials in both the body and a Basic header', () => {
    expect(() => parseTokenRequest(post, basic('app_1', 's'))).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it.each([
    [{ grant_type: 'client_credentials', client_secret: 's' }, 'client_id is required'],
    [{ grant_type: 'client_credentials', client_id: 'a' }, 'client_secret is required'],
    [
      { grant_type: 'client_credentials', client_id: '', client_secret: 's' },
      'client_id is required',
    ],
  ])('missing credentials → invalid_request (%j)', (body, message) => {
    expect(() => parseTokenRequest(body, undefined)).toThrow(message);
  });

  it.each([[['client_credentials', 'client_credentials']], [42], [{ x: 1 }]])(
    'non-string parameter → invalid_request (%j)',
    (grant) => {
      expect(() => parseTokenRequest({ ...post, grant_type: grant }, undefined)).toThrow(
        expect.objectContaining({ code: 'invalid_request' }),
      );
    },
  );

  it.each([
    'Basic !!!',
    'Basic ' + Buffer.from('no-colon').toString('base64'),
    'Basic ' + Buffer.from(':secret').toString('base64'),
  ])('undecodable Basic credentials → invalid_client with the Basic challenge (%s)', (header) => {
    expect(() => parseTokenRequest({ grant_type: 'client_credentials' }, header)).toThrow(
      expect.objectContaining({
        code: 'invalid_client',
        options: { headers: { 'www-authenticate': 'Basic realm="oauth"' } },
      }),
    );
  });

  it('accepts a client_id in the body equal to the Basic one, refuses a different one', () => {
    expect(
      parseTokenRequest(
        { grant_type: 'client_credentials', client_id: 'app_a' },
        basic('app_a', 'b'),
      ).clientId,
    ).toBe('app_a');
    expect(() =>
      parseTokenRequest(
        { grant_type: 'client_credentials', client_id: 'app_x' },
        basic('app_a', 'b'),
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it.each(['a', 'app_', 'app:1', `app_${'a'.repeat(61)}`, 'app_a b', 'x'.repeat(100_000)])(
    'refuses the client_id %j as invalid_client before anything else',
    (clientId) => {
      expect(() =>
        parseTokenRequest(
          { grant_type: 'client_credentials', client_id: clientId, client_secret: 's' },
          undefined,
        ),
      ).toThrow(expect.objectContaining({ code: 'invalid_client' }));
    },
  );
});
