/**
 * The API's shapes, as named by its OpenAPI schema: aliases of the types
 * openapi-typescript generated into `schema.ts` (never written by hand), plus the
 * client's own option bags.
 */
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type Namespace = Schemas["Namespace"];
export type Job = Schemas["Job"];
export type JobStatus = Schemas["StatusEnum"];
export type JobResult = Schemas["JobResult"];
export type JobUsage = Schemas["JobUsage"];
export type JobPage = Schemas["JobPage"];
export type Message = Schemas["MessageRequest"];
export type Role = Schemas["RoleEnum"];
export type Tier = Schemas["TierEnum"];
export type Memory = Schemas["Memory"];
export type MemorySummary = Schemas["MemorySummary"];
export type MemoryPage = Schemas["MemoryPage"];
export type MemoryLink = Schemas["MemoryLink"];
export type Forgotten = Schemas["MemoryForgotten"];
export type MemoryHistory = Schemas["MemoryHistory"];
export type MemoryVersion = Schemas["MemoryVersion"];
export type MemoryBlame = Schemas["MemoryBlame"];
export type BlameHunk = Schemas["BlameHunk"];
export type BlameCommit = Schemas["BlameCommit"];
export type SourceMessage = Schemas["SourceMessage"];
export type ChangesPage = Schemas["ChangesPage"];
export type ChangedMemory = Schemas["ChangedMemory"];
export type ImportResult = Schemas["ImportResult"];
export type Purge = Schemas["Purge"];
export type Revert = Schemas["Revert"];
export type RevertSkippedFile = Schemas["RevertSkippedFile"];
export type Retrieval = Schemas["Retrieval"];
export type RetrievalResult = Schemas["Result"];
export type Arms = Schemas["Arms"];
export type ErrorBody = Schemas["Error"];
export type Credential = Schemas["Credential"];
/** drf-spectacular renders the read-only polymorphic `credential` as an `Omit<...>`;
 * on the wire it is the whole `Credential` (`type` included). */
export type WhoAmI = Omit<Schemas["WhoAmI"], "credential"> & { credential: Credential };

/** Every change from `since` to the head, all pages (`namespaces.changes`). */
export interface Changes {
  since: string | null;
  commit: string;
  changes: ChangedMemory[];
}

/** A transcript: a string is one user message. */
export type Messages = string | readonly Message[];
/** One value or several (any of these tiers; all of these tags). */
export type Filter = string | readonly string[];

export interface ClientOptions {
  /** The service's address, with or without `/v1`; default `http://127.0.0.1:8000`. */
  baseUrl?: string;
  /** An API key (`glk_...`); it acts for its account. */
  apiKey?: string;
  /** The namespace calls use when they name none (unset: the service's `default`). */
  namespace?: string;
  /** Milliseconds one request may take before it fails (`APIConnectionError`); default 30,000. */
  timeout?: number;
  /** Times a read, or a write safe to repeat, is sent again after a connection
   * failure, a 429 or a 503; default 2. */
  maxRetries?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A `fetch` to send with (default `globalThis.fetch`): a proxy agent, a test's recorder. */
  fetch?: typeof globalThis.fetch;
}

export interface NamespaceOption {
  namespace?: string;
}

export interface AddOptions extends NamespaceOption {
  sessionId?: string;
  metadata?: Record<string, unknown>;
  /** Yours, or a fresh one per call: a retry of this call returns the same job. */
  idempotencyKey?: string;
  /** Resolve once the job has ended `done` (throws `JobFailedError`, `JobTimeoutError`). */
  wait?: boolean;
  /** Milliseconds to wait for the job, with `wait`; default 120,000. */
  timeout?: number;
}

export interface ListMemoriesOptions extends NamespaceOption {
  tier?: Tier;
  tag?: string;
  /** Memories fetched per request, 1-200 (the service's default 50). */
  pageSize?: number;
}

export interface MemoryPageOptions extends NamespaceOption {
  tier?: Tier;
  tag?: string;
  cursor?: string;
  limit?: number;
}

export interface ListJobsOptions extends NamespaceOption {
  pageSize?: number;
}

export interface JobPageOptions extends NamespaceOption {
  cursor?: string;
  limit?: number;
}

export interface WaitOptions {
  /** Milliseconds; default 120,000. */
  timeout?: number;
}

export interface RevertOptions {
  force?: boolean;
  /** If given, must be the job's namespace (else `job_not_found`). */
  namespace?: string;
}

export interface RetrieveOptions extends NamespaceOption {
  /** 1-100, the service's default 10. */
  limit?: number;
  /** Any of these tiers. */
  tier?: Tier | readonly Tier[];
  /** All of these tags. */
  tag?: Filter;
  arms?: readonly ("lexical" | "semantic" | "graph")[];
  /** Cosine floor (-1..1) for the semantic arm; the graph arm follows only what is left. */
  minSimilarity?: number;
  /** Answer from the namespace as it was at a commit (id or 7+ hex prefix) or a time
   * (the last commit made by then). */
  asOf?: string | Date;
  /** What a time in `asOf` is compared with: `"stored"` (the default: when each commit
   * was made) or `"said"` (when its conversation was said, for a backfilled history). */
  asOfBy?: "stored" | "said";
}

export interface ChangesOptions {
  since?: string;
  pageSize?: number;
}

export interface ChangesPageOptions {
  since?: string;
  cursor?: string;
  limit?: number;
}

export interface ExportOptions {
  format?: "bundle" | "tar";
}

export interface ImportOptions {
  /** Unset: the service tells a tar.gz and a git bundle apart. */
  format?: "bundle" | "tar";
  /** A bundle whose history does not continue the namespace's is refused
   * (`409 unrelated_history`) unless `replace`: one commit then makes the namespace's
   * files the bundle's (earlier versions stay in its history). */
  replace?: boolean;
}

export type Upload = Uint8Array | ArrayBuffer | Blob;
