import { describe, expect, it } from 'vitest';
import { CustomerSession, type CustomerTokens } from './customer-session.js';

describe('CustomerSession', () => {
  const first: CustomerTokens = { token: 's1', refresh_token: 'r1' };

  it('renews once for every caller that saw the same session refused', async () => {
    const presented: string[] = [];
    const renewed: CustomerTokens[] = [];
    const session = new CustomerSession(
      first,
      async (refreshToken) => {
        presented.push(refreshToken);
        await new Promise((resolve) => setImmediate(resolve));
        return { token: `s${presented.length + 1}`, refresh_token: `r${presented.length + 1}` };
      },
      (next) => renewed.push(next),
    );
    const tokens = await Promise.all([1, 2, 3].map(() => session.renewFrom('s1')));
    expect(tokens).toEqual(['s2', 's2', 's2']);
    expect(presented).toEqual(['r1']);
    expect(renewed).toEqual([{ token: 's2', refresh_token: 'r2' }]);
    // A caller late with the old session gets the current one, without a refresh.
    expect(await session.renewFrom('s1')).toBe('s2');
    expect(presented).toEqual(['r1']);
    // The next refusal presents the newest refresh token.
    expect(await session.renewFrom('s2')).toBe('s3');
    expect(presented).toEqual(['r1', 'r2']);
  });

  it('a refused refresh reaches every waiting caller, and the next refusal tries again', async () => {
    let calls = 0;
    const session = new CustomerSession(first, () => {
      calls += 1;
      return Promise.reject(new Error('invalid_grant'));
    });
    const results = await Promise.allSettled([session.renewFrom('s1'), session.renewFrom('s1')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    await expect(session.renewFrom('s1')).rejects.toThrow('invalid_grant');
    expect(calls).toBe(2);
    expect(session.token).toBe('s1');
  });
});
