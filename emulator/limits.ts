/**
 * Request limits of the emulator, in a module of their own so the public entry point can re-export them without
 * reaching the HTTP server's framework types.
 */

/**
 * The deepest nesting of arrays and objects a JSON request body may have. No API body nests beyond four levels
 * (an identity's `claimMatch.claimPatterns.<claim>`); the limit keeps recursive code (validation, cloning,
 * comparison) far from the stack's end. Deeper is INVALID_ARGUMENT naming `body`.
 */
export const MAX_JSON_DEPTH = 64;

/** Largest request body accepted, in bytes (1 MiB); larger is INVALID_ARGUMENT naming `body`. */
export const BODY_LIMIT_BYTES = 1 << 20;
