// Small JSON calls to the service for set-up (tokens, seeding, customers).

/** `method path` with an optional JSON body; throws unless the status is `expect`. */
export async function call(base, method, path, { token, body, headers = {}, expect = 200 } = {}) {
  const init = {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  if (response.status !== expect) {
    throw new Error(`${method} ${path} answered ${response.status} (expected ${expect}): ${text}`);
  }
  return text ? JSON.parse(text) : undefined;
}

export async function appToken(base, clientId, clientSecret, scope) {
  const body = {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
    scope,
  };
  return (await call(base, 'POST', '/builders/oauth/token', { body })).access_token;
}

/** Runs `count` calls of `one(i)` with at most `parallel` at once; returns their results. */
export async function inParallel(count, parallel, one) {
  const results = Array.from({ length: count });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await one(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return results;
}
