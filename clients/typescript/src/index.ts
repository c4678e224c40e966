/**
 * gitloom-client: a TypeScript client for GitLoom, the memory service for LLM
 * applications, built on `fetch` with no dependencies (Node >= 18, browsers, edge
 * runtimes).
 *
 * ```js
 * import { GitLoom } from "gitloom-client";
 * const gl = new GitLoom({ baseUrl: "http://127.0.0.1:8000", apiKey: "glk_..." });
 * await gl.memories.add("I bought a Sony A7III in Bengaluru.", { wait: true });
 * ```
 *
 * Errors are `GitLoomError` subclasses carrying the API's error `code`; API keys
 * themselves are managed on the dashboard, not through this client.
 */
export { GitLoom, Jobs, Memories, Namespaces, DEFAULT_WAIT_TIMEOUT_MS } from "./client.js";
export { VERSION, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRY_WAIT_S } from "./http.js";
export {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GitLoomError,
  GoneError,
  JobError,
  JobFailedError,
  JobTimeoutError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  UnexpectedResponseError,
  WebhookVerificationError,
} from "./errors.js";
export { verifyWebhook, signWebhook, WEBHOOK_TOLERANCE_SECONDS } from "./webhooks.js";
export type { VerifyWebhookOptions, WebhookHeaders } from "./webhooks.js";
export type * from "./types.js";
export type { paths, components, operations } from "./schema.js";
