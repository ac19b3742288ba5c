/**
 * Builds an API client from resolved settings: the API URL and version, the retry policy, and a token source
 * (a configured token as-is; otherwise workload identity through the token exchange, cached and refreshed).
 */
import { PlatformClient, type ClientOptions } from "./client/client";
import type { Settings } from "./config";

/**
 * A client for `s`.
 * @param extra further client options (e.g. `onRetry` for logging).
 */
export function clientFromSettings(s: Settings, extra: Partial<ClientOptions> = {}): PlatformClient {
  return new PlatformClient({
    apiUrl: s.apiUrl,
    apiVersion: s.apiVersion,
    retry: s.retry,
    token: tokenFor(s),
    ...(s.requestDeadlineMs !== undefined ? { deadlineMs: s.requestDeadlineMs } : {}),
    ...(s.maxResponseBytes !== undefined ? { maxResponseBytes: s.maxResponseBytes } : {}),
    ...(s.maxPages !== undefined ? { maxPages: s.maxPages } : {}),
    ...(s.maxWalkBytes !== undefined ? { maxWalkBytes: s.maxWalkBytes } : {}),
    ...extra,
  });
}

function tokenFor(s: Settings): ClientOptions["token"] {
  if (s.token) return s.token;
  // Workload identity: the credentials module exchanges and refreshes (loaded here so the shim stays small).
  const { tokenSource } = require("./credentials") as typeof import("./credentials");
  const source = tokenSource({
    apiUrl: s.apiUrl,
    authUrl: s.authUrl,
    ...(s.identity ? { identity: s.identity } : {}),
    ...(s.identityToken ? { identityToken: s.identityToken } : {}),
    ...(s.identityTokenFile ? { identityTokenFile: s.identityTokenFile } : {}),
  });
  return () => source.getToken();
}
