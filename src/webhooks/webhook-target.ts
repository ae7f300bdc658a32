import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from './address-policy.js';

/** What the configuration allows beyond public https URLs. */
export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/** A URL or address refused; `allowedBy` names the policy flag that would accept it, if any. */
export class RefusedTarget extends Error {
  constructor(
    message: string,
    readonly allowedBy?: keyof TargetPolicy,
  ) {
    super(message);
  }
}

const CREATION_LOOKUP_TIMEOUT_MS = 3000;

/**
 * The URL rules checked before anything is resolved or sent: absolute http(s) (http only
 * when allowed), no credentials in it, an IP-literal host must be public. Returns the URL.
 */
export function checkTargetUrl(text: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedTarget('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    if (policy.allowHttp) throw new RefusedTarget('must use http or https');
    throw new RefusedTarget('must use https', url.protocol === 'http:' ? 'allowHttp' : undefined);
  }
  if (url.username !== '' || url.password !== '') {
    throw new RefusedTarget('must not carry credentials');
  }
  const literal = hostAddress(url);
  if (literal !== undefined && !policy.allowPrivateNetworks && !isPublicAddress(literal)) {
    throw new RefusedTarget(`${literal} is not a public address`, 'allowPrivateNetworks');
  }
  return url;
}

/** The host as an IP address when the URL names one (IPv6 without its brackets). */
function hostAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, callback);

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that refuses a host when any of its addresses is not public,
 * so the check and the connection use the same answer (no DNS-rebinding window between a
 * check and a second resolution).
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = policy.allowPrivateNetworks
        ? undefined
        : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) {
        return callback(
          new RefusedTarget(
            `${hostname} resolves to ${refused.address}, not a public address`,
            'allowPrivateNetworks',
          ),
          [],
        );
      }
      if (addresses.length === 0)
        return callback(new RefusedTarget(`${hostname} has no address`), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * At endpoint creation: resolves the URL's host now and refuses it when an address is not
 * public. A name that does not resolve (yet) is accepted: every delivery resolves it again
 * through `guardedLookup`, which is where the guarantee lies.
 */
export async function checkTargetResolves(
  url: URL,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<void> {
  if (hostAddress(url) !== undefined || policy.allowPrivateNetworks) return;
  // A slow resolver must not hold the request: past the limit the name counts as unresolved.
  const addresses = await new Promise<LookupAddress[]>((ok) => {
    const timer = setTimeout(() => ok([]), CREATION_LOOKUP_TIMEOUT_MS);
    resolve(url.hostname, (error, found) => {
      clearTimeout(timer);
      ok(error ? [] : found);
    });
  });
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused) {
    throw new RefusedTarget(
      `${url.hostname} resolves to ${refused.address}, not a public address`,
      'allowPrivateNetworks',
    );
  }
}

/** Why `text` is refused under `policy` (URL rules, then the host's addresses now), if it is. */
export async function targetRefusal(
  text: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<RefusedTarget | undefined> {
  try {
    await checkTargetResolves(checkTargetUrl(text, policy), policy, resolve);
    return undefined;
  } catch (error) {
    if (error instanceof RefusedTarget) return error;
    throw error;
  }
}

/**
 * The policy flags that alone stand between `text` and acceptance (an http URL to a local
 * receiver needs both), found by asking again with each named flag set; empty when the URL
 * is refused for a reason no flag lifts (credentials, not a URL). Only for the message: the
 * URL stays refused.
 */
export async function flagsThatAllow(
  text: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<Array<keyof TargetPolicy>> {
  const flags: Array<keyof TargetPolicy> = [];
  let relaxed = policy;
  for (let refusal = await targetRefusal(text, policy, resolve); refusal;) {
    const flag = refusal.allowedBy;
    if (flag === undefined || relaxed[flag]) return [];
    flags.push(flag);
    relaxed = { ...relaxed, [flag]: true };
    refusal = await targetRefusal(text, relaxed, resolve);
  }
  return flags;
}
