/** What a login or a refresh answers that the client keeps: the session and its refresh token. */
export interface CustomerTokens {
  token: string;
  refresh_token: string;
}

/** The refresh was refused (`invalid_grant`: the chain ended): the customer must log in again. */
export class SessionEndedError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
  ) {
    super(`customer session ended: ${status} ${error ?? ''}`.trim());
    this.name = 'SessionEndedError';
  }
}

/**
 * The refresh failed for another reason (429, 5xx, the network): the session keeps its refresh
 * token, and the next refused call tries again. Rarely, a refresh the server committed has its
 * answer lost on the way; presenting that token again then ends the chain (SessionEndedError).
 */
export class RefreshFailedError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
  ) {
    super(`customer session refresh failed: ${status} ${error ?? ''}`.trim());
    this.name = 'RefreshFailedError';
  }
}

/**
 * A customer's session and refresh token. When the API refuses the session (expired, or it
 * ended), `renewFrom` trades the refresh token for a new pair once, for every caller that saw
 * that session refused: a refresh token is single use, and a second presentation would end
 * the whole chain (theft detection). `onRenewed` hears every new pair, to store it before the
 * next call needs it. Keep one CustomerSession per pair (not one per tab or worker): two would
 * each present the same refresh token.
 */
export class CustomerSession {
  #tokens: CustomerTokens;
  #pending?: Promise<CustomerTokens>;

  constructor(
    tokens: CustomerTokens,
    private readonly refresh: (refreshToken: string) => Promise<CustomerTokens>,
    private readonly onRenewed?: (tokens: CustomerTokens) => void,
  ) {
    this.#tokens = { token: tokens.token, refresh_token: tokens.refresh_token };
  }

  /** The session token to send now. */
  get token(): string {
    return this.#tokens.token;
  }

  /**
   * The session token after `stale` was refused: a new one (one refresh, shared by concurrent
   * callers), or the current one when another call already replaced `stale`.
   */
  async renewFrom(stale: string): Promise<string> {
    if (this.#tokens.token !== stale) return this.#tokens.token;
    this.#pending ??= this.refresh(this.#tokens.refresh_token)
      .then((next) => {
        this.#tokens = { token: next.token, refresh_token: next.refresh_token };
        this.onRenewed?.(this.#tokens);
        return this.#tokens;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return (await this.#pending).token;
  }
}
