/**
 * The client: `GitLoom` with `namespaces`, `memories` and `jobs`, one method per /v1
 * operation an API key may call (key management is dashboard-only by design), the
 * same shape as the Python client. Lists are async iterators that fetch a page at a
 * time; every `memories.add` carries an Idempotency-Key.
 */
import {
  APIConnectionError,
  ConflictError,
  JobFailedError,
  JobTimeoutError,
  ServiceUnavailableError,
} from "./errors.js";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type Query,
  Transport,
  readJson,
  sleep,
} from "./http.js";
import { randomUUID } from "./crypto.js";
import type {
  AddOptions,
  Changes,
  ChangesOptions,
  ChangesPage,
  ChangesPageOptions,
  ClientOptions,
  ExportOptions,
  Filter,
  Forgotten,
  ImportOptions,
  ImportResult,
  Job,
  JobPage,
  JobPageOptions,
  ListJobsOptions,
  ListMemoriesOptions,
  Memory,
  MemoryBlame,
  MemoryHistory,
  MemoryPage,
  MemoryPageOptions,
  MemorySummary,
  Message,
  Messages,
  Namespace,
  NamespaceOption,
  Purge,
  Retrieval,
  RetrieveOptions,
  Revert,
  RevertOptions,
  Upload,
  WaitOptions,
  WhoAmI,
} from "./types.js";

export const DEFAULT_WAIT_TIMEOUT_MS = 120_000;

function push(query: Query, name: string, value: string | number | undefined): Query {
  if (value !== undefined) query.push([name, String(value)]);
  return query;
}

function pushAll(query: Query, name: string, values: Filter | undefined): Query {
  if (values === undefined) return query;
  for (const value of typeof values === "string" ? [values] : values) query.push([name, value]);
  return query;
}

/** A transcript as the API takes it. A plain string is one user message. */
function messagesPayload(messages: Messages): Message[] {
  return typeof messages === "string" ? [{ role: "user", content: messages }] : [...messages];
}

/** 0.1 s, then longer, up to 1 s: a job of the offline extractor ends in well under a
 * second, one of a model in seconds to minutes. */
function pollInterval(attempt: number): number {
  return Math.min(100 * 1.5 ** attempt, 1000);
}

function isFinished(job: Job): boolean {
  return job.status === "done" || job.status === "failed";
}

/**
 * A client of one GitLoom service, acting for the account of `apiKey`.
 *
 * ```js
 * const gl = new GitLoom({ baseUrl: "http://127.0.0.1:8000", apiKey: "glk_..." });
 * await gl.memories.add("I bought a Sony A7III in Bengaluru.", { wait: true });
 * (await gl.retrieve("what camera do I own")).results[0]?.content;
 * ```
 */
export class GitLoom {
  readonly namespaces: Namespaces;
  readonly memories: Memories;
  readonly jobs: Jobs;
  /** The namespace calls use when they name none (unset: the service's `default`). */
  readonly namespace: string | undefined;
  /** @internal */
  readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    this.namespace = options.namespace;
    this.transport = new Transport({
      baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
      apiKey: options.apiKey,
      timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: options.headers ?? {},
      fetch: options.fetch,
    });
    this.namespaces = new Namespaces(this);
    this.memories = new Memories(this);
    this.jobs = new Jobs(this);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** The account the API key belongs to, and the key itself. */
  async whoami(): Promise<WhoAmI> {
    return (await this.transport.json("get", "/v1/whoami", { retry: true })) as WhoAmI;
  }

  /**
   * The memories that best answer `query`, fused from BM25, cue vectors and links.
   * `tier`: any of these tiers; `tag`: all of these tags; `arms`: a subset of
   * `lexical`, `semantic`, `graph`; `asOf`: the namespace as it was at a past commit
   * (an id or a unique 7+ hex prefix) or time (`Retrieval.as_of` says which commit);
   * `asOfBy: "said"` compares that time with when conversations were said, not stored.
   */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<Retrieval> {
    const params: Query = [["query", query]];
    push(params, "namespace", this.scope(options.namespace));
    push(params, "limit", options.limit);
    pushAll(params, "tier", options.tier);
    pushAll(params, "tag", options.tag);
    if (options.arms !== undefined) params.push(["arms", options.arms.join(",")]);
    push(params, "min_similarity", options.minSimilarity);
    const asOf = options.asOf instanceof Date ? options.asOf.toISOString() : options.asOf;
    push(params, "as_of", asOf);
    push(params, "as_of_by", options.asOfBy);
    return this.transport.json("get", "/v1/retrieve", { query: params, retry: true });
  }

  /** @internal */
  scope(namespace: string | undefined): string | undefined {
    return namespace ?? this.namespace;
  }

  /** @internal */
  namespaceQuery(namespace: string | undefined): Query {
    return push([], "namespace", this.scope(namespace));
  }
}

/** `/v1/namespaces`: a namespace is one memory (one git repository), typically one per
 * end user. They are created explicitly; a call naming an unknown one is 404. */
export class Namespaces {
  constructor(private readonly client: GitLoom) {}

  private get t(): Transport {
    return this.client.transport;
  }

  async list(): Promise<Namespace[]> {
    return (await this.t.json("get", "/v1/namespaces", { retry: true })).namespaces;
  }

  /** Create `name`; with `existOk` an existing one is returned instead of throwing
   * `ConflictError` (`namespace_exists`). */
  async create(name: string, options: { existOk?: boolean } = {}): Promise<Namespace> {
    try {
      return await this.t.json("post", "/v1/namespaces", { json: { name } });
    } catch (error) {
      if (options.existOk && error instanceof ConflictError && error.code === "namespace_exists") {
        return this.get(name);
      }
      throw error;
    }
  }

  async get(name: string): Promise<Namespace> {
    return this.t.json("get", "/v1/namespaces/{name}", { params: { name }, retry: true });
  }

  /** Delete the namespace with all its memories, history and index. */
  async delete(name: string): Promise<void> {
    await this.t.send("delete", "/v1/namespaces/{name}", { params: { name } });
  }

  /** The repository to take away: a git bundle (`git clone` reads it) or, with
   * `format: "tar"`, a tar.gz of the memory files at the head. */
  async export(name: string, options: ExportOptions = {}): Promise<Uint8Array> {
    const response = await this.t.send("get", "/v1/namespaces/{name}/export", {
      params: { name },
      query: [["format", options.format ?? "bundle"]],
      headers: { Accept: "*/*" },
      retry: true,
    });
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Import a tar.gz of memory files or a git bundle, all in one commit or not at all.
   * A big upload (over the service's `GITLOOM_IMPORT_INLINE_BYTES`) is queued: the
   * result is then its `Job` (it has a `status`; `jobs.wait` it). A bundle of an
   * unrelated history is `ConflictError` `unrelated_history` unless `replace: true`. */
  async import(name: string, data: Upload, options: ImportOptions = {}): Promise<ImportResult | Job> {
    const response = await this.t.send("post", "/v1/namespaces/{name}/import", {
      params: { name },
      query: push(options.format ? [["format", options.format]] : [], "replace", options.replace ? "true" : undefined),
      body: data as BodyInit,
      headers: {
        "Content-Type": options.format === "bundle" ? "application/x-git-bundle" : "application/gzip",
      },
    });
    const answer = (await readJson(response)) as ImportResult | { job: Job };
    return response.status === 202 ? (answer as { job: Job }).job : (answer as ImportResult);
  }

  /** One page of the memories added, modified and deleted from commit `since` to the
   * head (`limit` 1-1000); without `since`, every memory as added. `GoneError`
   * (`commit_not_in_history`) when `since` is not in the history: re-sync in full. */
  async changesPage(name: string, options: ChangesPageOptions = {}): Promise<ChangesPage> {
    const query: Query = [];
    push(query, "since", options.since);
    push(query, "cursor", options.cursor);
    push(query, "limit", options.limit);
    return this.t.json("get", "/v1/namespaces/{name}/changes", { params: { name }, query, retry: true });
  }

  /** Every change from `since` to the head, all pages. Apply them to a local copy,
   * then keep `.commit` and pass it as `since` next time. */
  async changes(name: string, options: ChangesOptions = {}): Promise<Changes> {
    const pageOptions: ChangesPageOptions = {};
    if (options.since !== undefined) pageOptions.since = options.since;
    if (options.pageSize !== undefined) pageOptions.limit = options.pageSize;
    const first = await this.changesPage(name, pageOptions);
    const changes = [...first.changes];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await this.changesPage(name, { ...pageOptions, cursor });
      changes.push(...page.changes);
      cursor = page.next_cursor;
    }
    return { since: first.since, commit: first.commit, changes };
  }

  /** Erase every version of every memory whose path or text contains `match` from all
   * history and object storage. Cannot be undone; `id` is null when nothing matched. */
  async purge(name: string, options: { match: string }): Promise<Purge> {
    return this.t.json("post", "/v1/namespaces/{name}/purge", {
      params: { name },
      json: { match: options.match },
    });
  }
}

/** `/v1/memories`: post conversations, read and forget the memories they became. */
export class Memories {
  constructor(private readonly client: GitLoom) {}

  private get t(): Transport {
    return this.client.transport;
  }

  /**
   * Post a conversation (messages, or a string for one user message); resolves to its
   * job at once, or with `wait: true` once the job has ended `done` (`JobFailedError`,
   * `JobTimeoutError` otherwise, both with the `job`). The post always carries an
   * Idempotency-Key (yours, or a fresh one), so the client's own retries return the
   * same job, never a second one.
   */
  async add(messages: Messages, options: AddOptions = {}): Promise<Job> {
    const body: Record<string, unknown> = { messages: messagesPayload(messages) };
    const namespace = this.client.scope(options.namespace);
    if (namespace !== undefined) body.namespace = namespace;
    if (options.sessionId !== undefined) body.session_id = options.sessionId;
    if (options.metadata !== undefined) body.metadata = options.metadata;
    const idempotencyKey = options.idempotencyKey ?? `gitloom-client-${await randomUUID()}`;
    const { job } = await this.t.json("post", "/v1/memories", {
      json: body,
      headers: { "Idempotency-Key": idempotencyKey },
      retry: true,
    });
    if (!options.wait) return job;
    return this.client.jobs.wait(job, options.timeout === undefined ? {} : { timeout: options.timeout });
  }

  /** Every memory at the namespace's head, in path order, fetched a page at a time. */
  async *list(options: ListMemoriesOptions = {}): AsyncGenerator<MemorySummary, void, undefined> {
    const { pageSize, ...filters } = options;
    let cursor: string | undefined;
    do {
      const pageOptions: MemoryPageOptions = { ...filters };
      if (cursor !== undefined) pageOptions.cursor = cursor;
      if (pageSize !== undefined) pageOptions.limit = pageSize;
      const page = await this.page(pageOptions);
      yield* page.memories;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** One page of memories (`limit` 1-200, the service's default 50). */
  async page(options: MemoryPageOptions = {}): Promise<MemoryPage> {
    const query = this.client.namespaceQuery(options.namespace);
    push(query, "tier", options.tier);
    push(query, "tag", options.tag);
    push(query, "cursor", options.cursor);
    push(query, "limit", options.limit);
    return this.t.json("get", "/v1/memories", { query, retry: true });
  }

  async get(path: string, options: NamespaceOption = {}): Promise<Memory> {
    return this.t.json("get", "/v1/memories/{path}", {
      params: { path },
      query: this.client.namespaceQuery(options.namespace),
      retry: true,
    });
  }

  /** Forget a memory: a commit removes its file; its history keeps it. */
  async delete(path: string, options: NamespaceOption = {}): Promise<Forgotten> {
    return this.t.json("delete", "/v1/memories/{path}", {
      params: { path },
      query: this.client.namespaceQuery(options.namespace),
    });
  }

  /** Every version of the memory, newest first, with diffs. */
  async history(path: string, options: NamespaceOption = {}): Promise<MemoryHistory> {
    return this.t.json("get", "/v1/memories/{path}/history", {
      params: { path },
      query: this.client.namespaceQuery(options.namespace),
      retry: true,
    });
  }

  /** Where each line of the memory came from: the commit that last changed it, its
   * job, session, extractor and prompt version, and the messages its sources cite. */
  async blame(path: string, options: NamespaceOption = {}): Promise<MemoryBlame> {
    return this.t.json("get", "/v1/memories/{path}/blame", {
      params: { path },
      query: this.client.namespaceQuery(options.namespace),
      retry: true,
    });
  }

  /** Erase every version of the memory from all history and object storage (`delete`
   * keeps its history). Cannot be undone; not retried (a repeat would find nothing). */
  async purge(path: string, options: NamespaceOption = {}): Promise<Purge> {
    const namespace = this.client.scope(options.namespace);
    return this.t.json("post", "/v1/memories/{path}/purge", {
      params: { path },
      json: namespace === undefined ? {} : { namespace },
    });
  }
}

/** `/v1/jobs`: what became of a posted conversation. */
export class Jobs {
  constructor(private readonly client: GitLoom) {}

  private get t(): Transport {
    return this.client.transport;
  }

  async get(jobId: string): Promise<Job> {
    return (await this.t.json("get", "/v1/jobs/{job_id}", { params: { job_id: jobId }, retry: true })).job;
  }

  /** The namespace's jobs, newest first, fetched a page at a time. */
  async *list(options: ListJobsOptions = {}): AsyncGenerator<Job, void, undefined> {
    let cursor: string | undefined;
    do {
      const pageOptions: JobPageOptions = {};
      if (options.namespace !== undefined) pageOptions.namespace = options.namespace;
      if (options.pageSize !== undefined) pageOptions.limit = options.pageSize;
      if (cursor !== undefined) pageOptions.cursor = cursor;
      const page = await this.page(pageOptions);
      yield* page.jobs;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** One page of the namespace's jobs (`limit` 1-200, the service's default 50). */
  async page(options: JobPageOptions = {}): Promise<JobPage> {
    const query = this.client.namespaceQuery(options.namespace);
    push(query, "cursor", options.cursor);
    push(query, "limit", options.limit);
    return this.t.json("get", "/v1/jobs", { query, retry: true });
  }

  /** Poll the job until it ends; resolve it `done`, throw `JobFailedError` if it failed
   * or `JobTimeoutError` after `timeout` ms. A connection failure or a 503 while
   * polling is waited out within the timeout. */
  async wait(job: Job | string, options: WaitOptions = {}): Promise<Job> {
    const timeout = options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
    let current = typeof job === "string" ? await this.get(job) : job;
    const deadline = Date.now() + timeout;
    for (let attempt = 0; !isFinished(current); attempt += 1) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new JobTimeoutError(
          `Job ${current.id} is still ${current.status} after ${timeout} ms; it will still run: ask for it again later.`,
          current,
        );
      }
      await sleep(Math.min(pollInterval(attempt), left));
      try {
        current = await this.get(current.id);
      } catch (error) {
        if (error instanceof APIConnectionError || error instanceof ServiceUnavailableError) continue;
        throw error;
      }
    }
    if (current.status === "failed") {
      const reason = current.error;
      throw new JobFailedError(`Job ${current.id} failed: ${reason?.message ?? "no reason given"}`, {
        code: reason?.code ?? "job_failed",
        job: current,
      });
    }
    return current;
  }

  /**
   * Undo what a finished job wrote, in one new commit. If a later commit changed one of
   * its files, nothing is written and `ConflictError` `revert_conflict` is thrown, its
   * `details.conflicts` naming the files and commits in the way; `force` reverts the
   * rest and lists those in `skipped`. Asked again: the same revert (`already_reverted`).
   */
  async revert(job: Job | string, options: RevertOptions = {}): Promise<Revert> {
    const jobId = typeof job === "string" ? job : job.id;
    const body: { force: boolean; namespace?: string } = { force: options.force ?? false };
    if (options.namespace !== undefined) body.namespace = options.namespace;
    // Safe to send again: a second revert of the same job answers the first one.
    return this.t.json("post", "/v1/jobs/{job_id}/revert", {
      params: { job_id: jobId },
      json: body,
      retry: true,
    });
  }
}
