// The client's own policy (retries, Retry-After, timeouts, waiting, errors without
// an envelope) against a real HTTP server on loopback that answers as scripted.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, beforeEach, describe, test } from "node:test";

import {
  APIConnectionError,
  GitLoom,
  JobFailedError,
  JobTimeoutError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
} from "gitloom-client";

const WHOAMI = { account: "acme", credential: { type: "api_key", name: "t", prefix: "glk_AbCdEfGh" } };
const JOB = { id: "5d0c0a56-0000-0000-0000-000000000000", namespace: "default", status: "queued" };

/** Each request is answered by the next step: [status, headers, body] or "reset"
 * (the socket is destroyed before any answer) or "hang" (never answered). */
let steps = [];
let seen = [];
let server;
let base;

function envelope(code) {
  return { error: { code, message: code.replace("_", " ") } };
}

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, at: Date.now() });
      const step = steps.length > 1 ? steps.shift() : steps[0];
      if (step === "reset") return req.socket.destroy();
      if (step === "hang") return undefined;
      const [status, headers, payload] = step;
      res.writeHead(status, { "Content-Type": "application/json", ...headers });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  seen = [];
});

const client = (options = {}) => new GitLoom({ baseUrl: base, apiKey: "glk_test", ...options });

describe("retries", () => {
  test("a read answered 503 with Retry-After is sent again after that many seconds", async () => {
    steps = [[503, { "Retry-After": "1" }, envelope("service_unavailable")], [200, {}, WHOAMI]];
    const started = Date.now();
    assert.equal((await client().whoami()).account, "acme");
    assert.equal(seen.length, 2);
    assert.ok(seen[1].at - seen[0].at >= 950, `waited ${seen[1].at - seen[0].at} ms`);
    assert.ok(Date.now() - started < 5000);
    assert.equal(seen[0].headers.authorization, "Bearer glk_test");
  });

  test("a 429 and a dropped connection are retried too", async () => {
    steps = ["reset", [429, { "Retry-After": "0" }, envelope("rate_limited")], [200, {}, WHOAMI]];
    assert.equal((await client().whoami()).account, "acme");
    assert.equal(seen.length, 3);
  });

  test("a Retry-After beyond 30 s is not waited out: the typed error says how long", async () => {
    steps = [[429, { "Retry-After": "120" }, envelope("rate_limited")]];
    const error = await client().whoami().catch((e) => e);
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(error.code, "rate_limited");
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 120);
    assert.equal(seen.length, 1);
  });

  test("after maxRetries the last answer's error is thrown", async () => {
    steps = [[503, { "Retry-After": "0" }, envelope("service_unavailable")]];
    const error = await client({ maxRetries: 3 }).whoami().catch((e) => e);
    assert.ok(error instanceof ServiceUnavailableError && error instanceof ServerError, String(error));
    assert.equal(error.code, "service_unavailable");
    assert.equal(seen.length, 4);
  });

  test("an add retried after a 503 and a dropped connection carries the same Idempotency-Key", async () => {
    steps = ["reset", [503, { "Retry-After": "0" }, envelope("service_unavailable")], [202, {}, { job: JOB }]];
    const job = await client().memories.add("hello", { namespace: "default" });
    assert.equal(job.id, JOB.id);
    assert.equal(seen.length, 3);
    const keys = seen.map((request) => request.headers["idempotency-key"]);
    assert.ok(keys[0]?.startsWith("gitloom-client-"), keys[0]);
    assert.equal(new Set(keys).size, 1);
    assert.deepEqual(JSON.parse(seen[2].body), { messages: [{ role: "user", content: "hello" }], namespace: "default" });
  });

  test("a delete is not retried", async () => {
    steps = [[503, { "Retry-After": "0" }, envelope("service_unavailable")]];
    const error = await client().memories.delete("facts/a/b.md").catch((e) => e);
    assert.ok(error instanceof ServiceUnavailableError, String(error));
    assert.equal(seen.length, 1);
    assert.equal(seen[0].method, "DELETE");
    assert.equal(seen[0].url, "/v1/memories/facts/a/b.md");
  });

  test("a service that cannot be reached is an APIConnectionError after the retries", async () => {
    const closed = createServer();
    await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await new GitLoom({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1 })
      .whoami()
      .catch((e) => e);
    assert.ok(error instanceof APIConnectionError, String(error));
    assert.equal(error.code, "connection_error");
  });

  test("a request past the client's timeout is an APIConnectionError", async () => {
    steps = ["hang"];
    const error = await client({ timeout: 200, maxRetries: 0 }).whoami().catch((e) => e);
    assert.ok(error instanceof APIConnectionError, String(error));
    assert.match(error.message, /timeout|abort/i);
  });

  test("an error answer without GitLoom's envelope is unexpected_response with its status", async () => {
    steps = [[502, { "Content-Type": "text/html" }, "<html>Bad gateway</html>"]];
    const error = await client().whoami().catch((e) => e);
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(error.status, 502);
    assert.equal(error.code, "unexpected_response");
    assert.match(error.message, /Bad gateway/);
  });
});

describe("waiting for a job", () => {
  test("a job that fails throws JobFailedError with the job's own error code", async () => {
    const failed = { ...JOB, status: "failed", error: { code: "model_unavailable", message: "the model endpoint kept failing" } };
    steps = [[202, {}, { job: JOB }], [200, {}, { job: { ...JOB, status: "running" } }], [200, {}, { job: failed }]];
    const error = await client().memories.add("hello", { wait: true }).catch((e) => e);
    assert.ok(error instanceof JobFailedError, String(error));
    assert.equal(error.code, "model_unavailable");
    assert.equal(error.job.status, "failed");
    assert.deepEqual(seen.slice(1).map((r) => r.url), [`/v1/jobs/${JOB.id}`, `/v1/jobs/${JOB.id}`]);
  });

  test("a wait that runs out throws JobTimeoutError with the job still accepted", async () => {
    steps = [[200, {}, { job: JOB }]];
    const started = Date.now();
    const error = await client().jobs.wait(JOB.id, { timeout: 400 }).catch((e) => e);
    assert.ok(error instanceof JobTimeoutError, String(error));
    assert.equal(error.code, "job_timeout");
    assert.equal(error.job.status, "queued");
    assert.ok(Date.now() - started < 2000);
  });

  test("a 503 while polling is waited out within the timeout", async () => {
    steps = [
      [503, { "Retry-After": "0" }, envelope("service_unavailable")],
      [503, { "Retry-After": "0" }, envelope("service_unavailable")],
      [503, { "Retry-After": "0" }, envelope("service_unavailable")],
      [200, {}, { job: { ...JOB, status: "done" } }],
    ];
    const job = await client({ maxRetries: 0 }).jobs.wait({ ...JOB }, { timeout: 5000 });
    assert.equal(job.status, "done");
    assert.equal(seen.length, 4);
  });
});

describe("requests", () => {
  test("queries, filters, asOf and the base URL's /v1 are sent as the API takes them", async () => {
    steps = [[200, {}, { tenant: "acme", namespace: "n", commit: null, indexed_commit: null, took_ms: 1, as_of: null, results: [] }]];
    const gl = client({ baseUrl: `${base}/v1/`, namespace: "n" });
    await gl.retrieve("what camera do I own", {
      tier: ["facts", "events"],
      tag: "camera",
      arms: ["lexical", "semantic"],
      limit: 3,
      minSimilarity: 0.25,
      asOf: new Date("2026-07-31T09:12:00Z"),
    });
    const url = new URL(seen[0].url, base);
    assert.equal(url.pathname, "/v1/retrieve");
    assert.deepEqual([...url.searchParams], [
      ["query", "what camera do I own"],
      ["namespace", "n"],
      ["limit", "3"],
      ["tier", "facts"],
      ["tier", "events"],
      ["tag", "camera"],
      ["arms", "lexical,semantic"],
      ["min_similarity", "0.25"],
      ["as_of", "2026-07-31T09:12:00.000Z"],
    ]);
  });
});
