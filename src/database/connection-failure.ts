/**
 * Why a first connection to DATABASE_URL failed, and whether trying again can help. A wrong
 * password, user, database name or host stays wrong: the process says so at once. A server
 * that is starting, restarting, full or out of reach for a moment may answer soon.
 */
export interface ConnectionFailure {
  /** SQLSTATE or system error code, when the error has one. */
  code?: string;
  /** What went wrong, in the driver's words (never the password: it is not in them). */
  reason: string;
  /** A configuration error: retrying cannot help. */
  permanent: boolean;
  /** What to check, for a permanent failure. */
  hint?: string;
}

/** SQLSTATEs and system errors that no retry fixes, with what to check. */
const PERMANENT: Record<string, string> = {
  '28P01': 'check the user name and password in DATABASE_URL',
  '28000': "the server's pg_hba.conf refuses this user, database or address",
  '3D000': 'create the database, or correct its name in DATABASE_URL',
  '42501': 'the user may not connect to this database (GRANT CONNECT)',
  ENOTFOUND: 'the host name in DATABASE_URL does not resolve',
  ERR_INVALID_URL: 'DATABASE_URL is not a valid URL',
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is not trusted (sslmode, sslrootcert)",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate is not trusted (sslmode, sslrootcert)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is not trusted (sslrootcert)",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate names another host",
};

/** Failures without a code that are configuration errors all the same. */
const PERMANENT_MESSAGES: Array<[RegExp, string]> = [
  [/does not support SSL/i, 'the server has no TLS: drop sslmode=require from DATABASE_URL'],
  [/SASL|SCRAM/i, 'the password in DATABASE_URL is missing or malformed'],
];

export function classifyConnectionFailure(error: unknown): ConnectionFailure {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const reason = typeof message === 'string' && message ? message : String(error);
  const known = typeof code === 'string' ? code : undefined;
  if (known && known in PERMANENT) {
    return { code: known, reason, permanent: true, hint: PERMANENT[known] };
  }
  for (const [pattern, hint] of PERMANENT_MESSAGES) {
    if (pattern.test(reason)) return { code: known, reason, permanent: true, hint };
  }
  return { code: known, reason, permanent: false };
}

/** `postgres://user:***@host:port/db`: where, never the password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}
