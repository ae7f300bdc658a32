/**
 * A start-up failure whose message says all there is to say (a database refusing the
 * credentials, a port in use): printed alone, without a stack trace, and the process exits 1.
 */
export class StartupError extends Error {}
