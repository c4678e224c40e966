/**
 * Sending one API operation: the URL from its schema route, the headers, the retry
 * policy (reads and writes safe to repeat, after a connection failure, a 429 or a 503,
 * honouring `Retry-After`) and the error envelope turned into a typed error.
 *
 * Routes and methods are checked against the generated `paths` at compile time, and
 * each operation's success body is read from the schema, so a route the schema drops
 * or a response it reshapes breaks the build, not a user.
 */
import {
  APIConnectionError,
  type APIError,
  UnexpectedResponseError,
  errorClass,
} from "./errors.js";
import type { paths } from "./schema.js";

export const VERSION = "0.1.0";
export const DEFAULT_BASE_URL = "http://127.0.0.1:8000";
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
/** A `Retry-After` longer than this is not waited out; the error is thrown instead. */
export const MAX_RETRY_WAIT_S = 30;
const RETRY_STATUSES = new Set([429, 503]);

export type Route = keyof paths;
type Method = "get" | "post" | "delete";
/** The methods the schema documents for `R`. */
export type MethodOf<R extends Route> = {
  [M in Method]-?: undefined extends paths[R][M] ? never : M;
}[Method];
type Responses<O> = O extends { responses: infer Rs } ? Rs : never;
type JsonBody<X> = X extends { content: { "application/json": infer B } } ? B : never;
/** The JSON body of the operation's success answer (200, 201 or 202). */
export type Ok<R extends Route, M extends MethodOf<R>> = JsonBody<
  Responses<paths[R][M]>[Extract<keyof Responses<paths[R][M]>, 200 | 201 | 202>]
>;

export type Query = [string, string][];

export interface Request {
  /** Values for the route's `{name}` segments; `{path}` is a memory path, slashes kept. */
  params?: Record<string, string>;
  query?: Query;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Safe to send again after a lost answer, a 429 or a 503 (reads, and writes that
   * carry an Idempotency-Key or answer the same when repeated). */
  retry?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  timeout: number;
  maxRetries: number;
  headers: Record<string, string>;
  fetch: typeof globalThis.fetch | undefined;
}

export function normaliseBaseUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? trimmed.slice(0, -"/v1".length) : trimmed;
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

/**
 * A memory's path goes into the URL as it is, slashes included. A `.` or `..` segment
 * is sent as `%252E`: fetch's URL parser resolves `%2E` like a dot, so it would climb
 * to another route; the service refuses the literal `%2E` as `invalid_path` instead.
 */
export function memoryPath(path: string): string {
  return path
    .split("/")
    .map((part) => (part === "." || part === ".." ? part.replaceAll(".", "%252E") : segment(part)))
    .join("/");
}

function expand(route: string, params: Record<string, string> = {}): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`Missing ${name} for ${route}.`);
    return name === "path" ? memoryPath(value) : segment(value);
  });
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date). */
export function retryAfter(response: Response): number | undefined {
  const value = response.headers.get("Retry-After");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** Milliseconds to wait before sending again, or undefined not to. Exponential
 * backoff from 0.5 s; a `Retry-After` wins when the service sends one. */
function retryWait(response: Response | undefined, attempt: number): number | undefined {
  const backoff = Math.min(500 * 2 ** attempt, 8000);
  if (response === undefined) return backoff;
  if (!RETRY_STATUSES.has(response.status)) return undefined;
  const after = retryAfter(response);
  if (after === undefined) return backoff;
  return after <= MAX_RETRY_WAIT_S ? after * 1000 : undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function apiError(response: Response): Promise<APIError> {
  const Class = errorClass(response.status);
  const text = await response.text().catch(() => "");
  let code = "unexpected_response";
  let message = `HTTP ${response.status} without GitLoom's error envelope: ${JSON.stringify(text.slice(0, 200))}`;
  let details: Record<string, unknown> | undefined;
  try {
    const envelope = (JSON.parse(text) as { error?: unknown }).error as
      | { code?: unknown; message?: unknown; details?: unknown }
      | undefined;
    if (envelope && typeof envelope.code === "string") {
      code = envelope.code;
      message = typeof envelope.message === "string" && envelope.message ? envelope.message : code;
      if (envelope.details && typeof envelope.details === "object") {
        details = envelope.details as Record<string, unknown>;
      }
    }
  } catch {
    // Not JSON: keep the unexpected_response code and the text's start.
  }
  return new Class(message, {
    code,
    status: response.status,
    details,
    retryAfter: retryAfter(response),
    response,
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause instanceof Error ? `: ${cause.message}` : "";
    return `${error.name}: ${error.message}${reason}`;
  }
  return String(error);
}

/** A successful answer's JSON body; `UnexpectedResponseError` when it is not JSON. */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new UnexpectedResponseError(
      `HTTP ${response.status} answer is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
      response.status,
    );
  }
}

export class Transport {
  readonly baseUrl: string;
  private readonly options: TransportOptions;

  constructor(options: TransportOptions) {
    this.options = options;
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
  }

  /** Send the operation and read its JSON answer, typed by the schema. */
  async json<R extends Route, M extends MethodOf<R>>(
    method: M,
    route: R,
    request: Request = {},
  ): Promise<Ok<R, M>> {
    return readJson(await this.send(method, route, request)) as Promise<Ok<R, M>>;
  }

  /** Send the operation; the successful `Response`, its body unread. */
  async send<R extends Route>(method: MethodOf<R>, route: R, request: Request = {}): Promise<Response> {
    const url = new URL(this.baseUrl + expand(route, request.params));
    for (const [name, value] of request.query ?? []) url.searchParams.append(name, value);
    const headers: Record<string, string> = {
      "User-Agent": `gitloom-client-typescript/${VERSION}`,
      Accept: "application/json",
      ...this.options.headers,
      ...request.headers,
    };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    let body = request.body;
    if (request.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(request.json);
    }
    const fetch = this.options.fetch ?? globalThis.fetch;
    for (let attempt = 0; ; attempt += 1) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await fetch(url, {
          method: method.toUpperCase(),
          headers,
          body: body ?? null,
          redirect: "follow",
          signal: AbortSignal.timeout(this.options.timeout),
        });
      } catch (error) {
        failure = error;
      }
      const wait =
        request.retry && attempt < this.options.maxRetries ? retryWait(response, attempt) : undefined;
      if (wait === undefined) {
        if (response === undefined) {
          throw new APIConnectionError(`${method.toUpperCase()} ${url.pathname}: ${describe(failure)}`, failure);
        }
        if (response.status >= 400) throw await apiError(response);
        return response;
      }
      // The answer is dropped: free its connection before waiting.
      await response?.body?.cancel().catch(() => undefined);
      await sleep(wait);
    }
  }
}
