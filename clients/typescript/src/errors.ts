/**
 * Errors. Everything the client throws is a `GitLoomError` with a `code`.
 *
 * An error answer of the API (`{"error": {"code", "message", "details"?}}`) becomes an
 * `APIError` subclass chosen by its HTTP status, carrying the envelope's `code`,
 * `message` and `details`, the `status` and, when the service sent one, `retryAfter`
 * (seconds). `code` is the stable part to branch on.
 */
import type { Job } from "./types.js";

/** Base of everything the client throws. */
export class GitLoomError extends Error {
  readonly code: string;
  readonly status: number | undefined;

  constructor(message: string, options: { code: string; status?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
  }

  override toString(): string {
    const status = this.status === undefined ? "" : ` ${this.status}`;
    return `${this.name}: [${this.code}${status}] ${this.message}`;
  }
}

export interface APIErrorOptions {
  code: string;
  status: number;
  details?: Record<string, unknown> | undefined;
  retryAfter?: number | undefined;
  response?: Response | undefined;
}

/** The service answered with an error envelope. */
export class APIError extends GitLoomError {
  override readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;
  readonly response: Response | undefined;

  constructor(message: string, options: APIErrorOptions) {
    super(message, { code: options.code, status: options.status });
    this.status = options.status;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.response = options.response;
  }
}

/** 400: the request is wrong (`invalid`, `invalid_transcript`, `invalid_path` ...). */
export class BadRequestError extends APIError {}
/** 401: no API key, or a wrong or revoked one. */
export class AuthenticationError extends APIError {}
/** 403: the key may not do this (`dashboard_only` for key management). */
export class PermissionDeniedError extends APIError {}
/** 404: `namespace_not_found`, `memory_not_found`, `job_not_found` ... (also what
 * another account's things look like). */
export class NotFoundError extends APIError {}
/** 409: `namespace_exists`, `idempotency_key_reused`, `write_conflict`, `revert_conflict` ... */
export class ConflictError extends APIError {}
/** 410: `commit_not_in_history` (re-sync from a full copy) or `commit_purged`
 * (`details.replaced_by` is the id that stands in its place). */
export class GoneError extends APIError {}
/** 413: over a size limit. */
export class PayloadTooLargeError extends APIError {}
/** 429: slow down; `retryAfter` says for how long. */
export class RateLimitError extends APIError {}
/** 500 and other 5xx: a bug or an outage on the service's side. */
export class ServerError extends APIError {}
/** 503: a dependency of the service is down; try again after `retryAfter`. */
export class ServiceUnavailableError extends ServerError {}

/** The service could not be reached, the connection failed mid-request, or the
 * request ran past the client's `timeout`. */
export class APIConnectionError extends GitLoomError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: "connection_error", cause });
  }
}

/** The service answered something that is not the API's JSON (a proxy's page?). */
export class UnexpectedResponseError extends GitLoomError {
  constructor(message: string, status?: number) {
    super(message, status === undefined ? { code: "unexpected_response" } : { code: "unexpected_response", status });
  }
}

/** Base of the errors of waiting for a job; `job` is its last known state. */
export class JobError extends GitLoomError {
  readonly job: Job;

  constructor(message: string, options: { code: string; job: Job }) {
    super(message, { code: options.code });
    this.job = options.job;
  }
}

/** The job ended `failed`; `code` is the job's error code (`model_unavailable` ...).
 * Nothing of it was written. */
export class JobFailedError extends JobError {}

/** The job had not ended when the wait ran out. It is still accepted and will run:
 * keep its `job.id` and ask again later. */
export class JobTimeoutError extends JobError {
  constructor(message: string, job: Job) {
    super(message, { code: "job_timeout", job });
  }
}

/** A webhook delivery whose signature or timestamp does not check out (`code`:
 * `missing_headers`, `invalid_secret`, `invalid_timestamp`, `timestamp_out_of_tolerance`,
 * `invalid_signature`). Answer it 4xx and do not act on it. */
export class WebhookVerificationError extends GitLoomError {
  constructor(message: string, code: string) {
    super(message, { code });
  }
}

type APIErrorClass = new (message: string, options: APIErrorOptions) => APIError;

const BY_STATUS: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

export function errorClass(status: number): APIErrorClass {
  return BY_STATUS[status] ?? (status >= 500 ? ServerError : APIError);
}
