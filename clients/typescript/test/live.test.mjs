// The client against a live GitLoom: tests/clients/test_typescript_client.py starts
// the service (real Postgres, git, object storage; jobs run as they are accepted),
// makes two accounts' API keys and runs this file with them in the environment.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, symlink, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GitLoom,
  GitLoomError,
  GoneError,
  NotFoundError,
} from "gitloom-client";

const BASE_URL = process.env.GITLOOM_TEST_URL;
const API_KEY = process.env.GITLOOM_TEST_API_KEY;
const OTHER_KEY = process.env.GITLOOM_TEST_OTHER_KEY;
const skip = BASE_URL && API_KEY ? false : "needs a live service: run tests/clients/test_typescript_client.py";
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const README = new URL("../../../README.md", import.meta.url);

const CAMERA = [
  { role: "user", content: "I just bought a Sony A7III camera from Fotocentre in Bengaluru.", id: "msg-1" },
  { role: "assistant", content: "Congratulations! Enjoy the new camera." },
];
const SISTER = "My sister Mira lives in Lisbon and works at Feedzai.";

/** A client whose every request is recorded: [METHOD, URL path, headers]. */
function recorded(options = {}) {
  const sent = [];
  const gl = new GitLoom({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    ...options,
    fetch: (input, init) => {
      sent.push([init.method, new URL(input).pathname, { ...init.headers }]);
      return fetch(input, init);
    },
  });
  return { gl, sent };
}

async function fresh(gl, name) {
  await gl.namespaces.delete(name).catch((error) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
  return gl.namespaces.create(name);
}

async function collect(iterable) {
  const items = [];
  for await (const item of iterable) items.push(item);
  return items;
}

async function rejects(promise, Class, code) {
  const error = await promise.then(
    () => assert.fail(`expected ${Class.name} ${code}`),
    (thrown) => thrown,
  );
  assert.ok(error instanceof Class, `${error} is not a ${Class.name}`);
  assert.equal(error.code, code, String(error));
  return error;
}

/** The operations /v1/schema documents that an API key may call: all but those
 * documenting `403 dashboard_only` (key management). */
async function apiKeyOperations() {
  const response = await fetch(`${BASE_URL}/v1/schema`, {
    headers: { Accept: "application/vnd.oai.openapi+json" },
  });
  assert.equal(response.status, 200);
  const schema = await response.json();
  const all = [];
  const dashboardOnly = [];
  for (const [path, item] of Object.entries(schema.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const op = `${method.toUpperCase()} ${path}`;
      if (JSON.stringify(operation.responses?.["403"] ?? {}).includes('"dashboard_only"')) dashboardOnly.push(op);
      else all.push(op);
    }
  }
  return { operations: all, dashboardOnly };
}

/** Which of `operations` the recorded requests reached. A memory path ends in `.md`,
 * so `/v1/memories/{path}` never claims a request to `.../history`. */
function reached(operations, sent) {
  return operations.filter((op) => {
    const [method, template] = op.split(" ");
    const pattern = template
      .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      .replace(/\{path\}/, "[^?]+\\.md")
      .replace(/\{\w+\}/g, "[^/]+");
    const regex = new RegExp(`^${pattern}$`);
    return sent.some(([m, path]) => m === method && regex.test(path));
  });
}

describe("against a live service", { skip }, () => {
  test("the README example remembers a conversation and recalls a fact in five lines", async () => {
    const text = await readFile(README, "utf8");
    const section = text.split("## TypeScript client")[1];
    assert.ok(section, "README.md has a TypeScript client section");
    const code = /```js\n([\s\S]*?)```/.exec(section)[1];
    const lines = code.split("\n").filter((line) => line.trim() && !line.trim().startsWith("//"));
    assert.equal(lines.length, 5, code);
    // Run as an app would: a module of its own, with the package installed beside it.
    const app = await mkdtemp(join(tmpdir(), "gitloom-readme-"));
    try {
      await mkdir(join(app, "node_modules"));
      await symlink(PACKAGE, join(app, "node_modules", "gitloom-client"), "dir");
      const example = join(app, "example.mjs");
      await writeFile(
        example,
        code.replace("http://127.0.0.1:8000", BASE_URL).replace('"glk_..."', JSON.stringify(API_KEY)),
      );
      const printed = [];
      const log = console.log;
      console.log = (...args) => printed.push(args.join(" "));
      try {
        await import(pathToFileURL(example).href);
      } finally {
        console.log = log;
      }
      console.log(`README example printed: ${printed.join("\n")}`);
      assert.match(printed.join("\n"), /Sony A7III/);
    } finally {
      await rm(app, { recursive: true, force: true });
    }
  });

  test("every operation an API key may call is reached, and what comes back is right", async () => {
    const { gl, sent } = recorded({ namespace: "ts-tour" });
    await gl.namespaces.delete("ts-tour").catch(() => undefined);
    await gl.namespaces.delete("ts-imported").catch(() => undefined);

    const me = await gl.whoami();
    assert.equal(me.account, "acme");
    assert.equal(me.credential.type, "api_key");
    const created = await gl.namespaces.create("ts-tour");
    assert.equal(created.name, "ts-tour");
    assert.ok((await gl.namespaces.list()).some((ns) => ns.name === "ts-tour"));
    assert.equal((await gl.namespaces.get("ts-tour")).name, "ts-tour");

    const job = await gl.memories.add(CAMERA, { sessionId: "chat-1", wait: true });
    assert.equal(job.status, "done");
    assert.equal(job.extractor, "offline");
    assert.equal(job.session_id, "chat-1");
    assert.ok(job.result.created?.length);
    const second = await gl.memories.add(SISTER, { wait: true });
    assert.equal((await gl.jobs.get(job.id)).status, "done");
    assert.deepEqual(new Set((await collect(gl.jobs.list())).map((j) => j.id)), new Set([job.id, second.id]));

    const path = job.result.created[0];
    const memory = await gl.memories.get(path);
    assert.match(memory.body, /Sony A7III/);
    assert.deepEqual(memory.sources, ["msg-1"]);
    assert.ok(memory.raw.startsWith("---"));
    const paths = (await collect(gl.memories.list())).map((m) => m.path);
    assert.ok(paths.includes(path));

    const found = await gl.retrieve("which camera did I buy", { limit: 5 });
    assert.equal(found.tenant, "acme");
    assert.equal(found.namespace, "ts-tour");
    assert.equal(found.results[0].path, path);
    assert.match(found.results[0].content, /Sony A7III/);
    assert.deepEqual((await gl.retrieve("Sony A7III", { tier: ["working"] })).results, []);
    assert.deepEqual((await gl.retrieve("what is the capital of Peru", { minSimilarity: 0.8 })).results, []);

    const bundle = await gl.namespaces.export("ts-tour");
    assert.equal(new TextDecoder().decode(bundle.slice(0, 15)), "# v2 git bundle");
    const archive = await gl.namespaces.export("ts-tour", { format: "tar" });
    assert.deepEqual([...archive.slice(0, 2)], [0x1f, 0x8b]); // gzip
    // The service's own tar.gz, imported into another namespace: the same memories.
    await gl.namespaces.create("ts-imported");
    const imported = await gl.namespaces.import("ts-imported", archive, { format: "tar" });
    assert.deepEqual([...imported.created].sort(), [...paths].sort());
    assert.match((await gl.memories.get(path, { namespace: "ts-imported" })).body, /Sony A7III/);

    const blame = await gl.memories.blame(path);
    assert.equal(blame.commit, memory.commit);
    assert.equal(blame.blob, memory.blob);
    const origin = blame.commits.find((c) => c.job?.id === job.id);
    assert.ok(origin, "the job that wrote the memory is in its blame");
    assert.equal(origin.session_id, "chat-1");
    assert.deepEqual(origin.messages.map((m) => m.id), ["msg-1"]);

    const everything = await gl.namespaces.changes("ts-tour", { pageSize: 1 });
    assert.equal(everything.since, null);
    assert.deepEqual(everything.changes.map((c) => c.path).sort(), [...paths].sort());

    const forgotten = await gl.memories.delete(path);
    assert.equal(forgotten.deleted, true);
    const history = await gl.memories.history(path);
    assert.deepEqual(history.versions.map((v) => v.change), ["delete", "add"]);
    assert.equal(history.versions[1].trailers["Gitloom-Job"], job.id);
    const page = await gl.namespaces.changesPage("ts-tour", { since: everything.commit, limit: 5 });
    assert.deepEqual(page.changes.map((c) => [c.path, c.change]), [[path, "delete"]]);
    assert.equal(page.next_cursor, null);

    // as of the job's commit the forgotten memory is still found; as of a time too.
    const past = await gl.retrieve("which camera did I buy", { asOf: history.versions[1].commit });
    assert.equal(past.as_of.commit, history.versions[1].commit);
    assert.ok(past.results.some((r) => r.path === path));
    assert.ok(!(await gl.retrieve("which camera did I buy")).results.some((r) => r.path === path));
    const byTime = await gl.retrieve("which camera did I buy", { asOf: new Date("2999-01-01T00:00:00Z") });
    assert.equal(byTime.as_of.commit, forgotten.commit);
    await rejects(
      gl.retrieve("which camera did I buy", { asOf: new Date("2001-01-01T00:00:00Z") }),
      NotFoundError,
      "as_of_before_history",
    );

    // Its one memory was forgotten: nothing is left to revert (issue 29).
    const nothing = await rejects(gl.jobs.revert(job), ConflictError, "nothing_to_revert");
    assert.equal(nothing.status, 409);
    assert.match(nothing.message, /forgotten/);
    const reverted = await gl.jobs.revert(second.id, { namespace: "ts-tour" });
    assert.equal(reverted.already_reverted, false);
    assert.deepEqual(reverted.removed, [...second.result.created].sort());
    assert.equal((await gl.jobs.revert(second)).already_reverted, true);

    const purged = await gl.memories.purge(path);
    assert.deepEqual(purged.paths, [path]);
    await rejects(gl.memories.history(path), NotFoundError, "memory_not_found");
    const matched = await gl.namespaces.purge("ts-imported", { match: "Feedzai" });
    assert.equal(matched.kind, "match");
    assert.ok(matched.versions >= 1);
    await gl.namespaces.delete("ts-imported");
    await rejects(gl.namespaces.get("ts-imported"), NotFoundError, "namespace_not_found");

    const { operations, dashboardOnly } = await apiKeyOperations();
    const covered = reached(operations, sent);
    console.log(
      `operations an API key may call: ${operations.length}, reached: ${covered.length}\n  ` +
        covered.join("\n  ") +
        `\ndashboard-only (403 dashboard_only for API keys, not in the client): ${dashboardOnly.join(", ")}`,
    );
    assert.deepEqual(operations.filter((op) => !covered.includes(op)), [], "operations the client never called");
    await gl.namespaces.delete("ts-tour");
  });

  test("asOfBy searches a backfilled history as it was said; replace imports an unrelated bundle", async () => {
    const gl = new GitLoom({ baseUrl: BASE_URL, apiKey: API_KEY, namespace: "ts-said" });
    await fresh(gl, "ts-said");
    /** One user message said `days` days back, as a backfill of an old chat posts it. */
    const said = (days, content, id) => {
      const when = new Date(Date.now() - days * 86_400_000);
      when.setUTCHours(10, 0, 0, 0);
      return [{ role: "user", content, id, timestamp: when.toISOString() }];
    };
    const dayAgo = (days) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const camera = await gl.memories.add(
      said(30, "I bought a Sony A7III camera from Fotocentre in Bengaluru.", "old-1"),
      { wait: true },
    );
    const dog = await gl.memories.add(
      said(10, "I adopted a beagle named Biscuit from the shelter in Pune.", "old-2"),
      { wait: true },
    );
    // Stored today: as of twenty days ago by when it was stored, there is no history yet,
    // and the error says what to send instead.
    const stored = await rejects(gl.retrieve("which camera did I buy", { asOf: dayAgo(20) }), NotFoundError, "as_of_before_history");
    assert.match(stored.message, /as_of_by=said/);
    const then = await gl.retrieve("what pets do I have", { asOf: dayAgo(20), asOfBy: "said" });
    assert.equal(then.as_of.by, "said");
    assert.equal(then.as_of.commit, camera.commit);
    assert.ok(then.results.every((r) => !r.content.includes("Biscuit")));
    const now = await gl.retrieve("what pets do I have", { asOf: dayAgo(5), asOfBy: "said" });
    assert.equal(now.as_of.commit, dog.commit);
    assert.match(now.results[0].content, /Biscuit/);

    // Another namespace's history is unrelated to this one: a plain import refuses it,
    // `replace: true` makes this namespace's files the bundle's in one commit.
    const other = new GitLoom({ baseUrl: BASE_URL, apiKey: API_KEY, namespace: "ts-said-other" });
    await fresh(other, "ts-said-other");
    const sister = await other.memories.add("My sister Mira lives in Lisbon and works at Feedzai.", { wait: true });
    const bundle = await other.namespaces.export("ts-said-other");
    await rejects(gl.namespaces.import("ts-said", bundle, { format: "bundle" }), ConflictError, "unrelated_history");
    const replaced = await gl.namespaces.import("ts-said", bundle, { format: "bundle", replace: true });
    assert.ok(replaced.commit);
    const left = (await collect(gl.memories.list())).map((m) => m.path).sort();
    assert.deepEqual(left, [...sister.result.created].sort());
    await gl.namespaces.delete("ts-said");
    await other.namespaces.delete("ts-said-other");
  });

  test("errors carry the API's code and status as typed errors", async () => {
    const gl = new GitLoom({ baseUrl: BASE_URL, apiKey: API_KEY, namespace: "ts-errors" });
    await gl.namespaces.delete("ts-errors").catch(() => undefined);
    const missing = await rejects(gl.memories.add(CAMERA), NotFoundError, "namespace_not_found");
    assert.equal(missing.status, 404);
    assert.ok(missing instanceof APIError && missing instanceof GitLoomError);
    assert.match(String(missing), /namespace_not_found 404/);

    await gl.namespaces.create("ts-errors");
    const exists = await rejects(gl.namespaces.create("ts-errors"), ConflictError, "namespace_exists");
    assert.equal(exists.status, 409);
    assert.equal((await gl.namespaces.create("ts-errors", { existOk: true })).name, "ts-errors");
    const invalid = await gl.memories.add([{ role: "user", content: "" }]).catch((e) => e);
    assert.ok(invalid instanceof BadRequestError && invalid.status === 400 && invalid.code.startsWith("invalid"), String(invalid));
    await rejects(gl.memories.get("facts/nothing/here-00000000.md"), NotFoundError, "memory_not_found");
    // A hostile path stays a memory path: the service refuses it, no other route is reached.
    await rejects(gl.memories.get("../../etc/passwd"), BadRequestError, "invalid_path");
    await rejects(gl.memories.get("facts/./x.md"), BadRequestError, "invalid_path");
    const gone = await rejects(gl.namespaces.changes("ts-errors", { since: "0".repeat(40) }), GoneError, "commit_not_in_history");
    assert.equal(gone.status, 410);
    await rejects(gl.namespaces.changesPage("ts-errors", { since: "abc123" }), BadRequestError, "invalid_commit");
    await rejects(gl.jobs.get("00000000-0000-0000-0000-000000000000"), NotFoundError, "job_not_found");

    const stranger = new GitLoom({ baseUrl: BASE_URL, apiKey: "glk_not-a-key" });
    const refused = await rejects(stranger.whoami(), AuthenticationError, "authentication_failed");
    assert.equal(refused.status, 401);
    await rejects(new GitLoom({ baseUrl: BASE_URL }).whoami(), AuthenticationError, "not_authenticated");
    await gl.namespaces.delete("ts-errors");
  });

  test("lists are async iterators that fetch one page at a time", async () => {
    const { gl, sent } = recorded({ namespace: "ts-pages" });
    await fresh(gl, "ts-pages");
    const jobs = [];
    for (const content of [CAMERA, SISTER]) {
      jobs.push(await gl.memories.add(content, { wait: true }));
    }
    const first = await gl.memories.page({ limit: 1 });
    assert.equal(first.memories.length, 1);
    assert.ok(first.next_cursor);

    sent.length = 0;
    const memories = await collect(gl.memories.list({ pageSize: 1 }));
    const paths = memories.map((m) => m.path);
    assert.ok(paths.length >= 2, paths.join());
    assert.deepEqual(paths, [...paths].sort());
    assert.equal(new Set(paths).size, paths.length);
    assert.equal(sent.length, paths.length); // one page of one each; the last says no next
    assert.deepEqual(paths, (await gl.memories.page({ limit: 200 })).memories.map((m) => m.path));

    const listed = await collect(gl.jobs.list({ pageSize: 1 }));
    assert.deepEqual(listed.map((j) => j.id), jobs.map((j) => j.id).reverse()); // newest first
    // An iterator stopped early asks for no more pages.
    sent.length = 0;
    for await (const memory of gl.memories.list({ pageSize: 1 })) {
      assert.ok(memory.path);
      break;
    }
    assert.equal(sent.length, 1);
    // A filter is passed on to every page.
    const tier = memories[0].tier;
    const ofTier = await collect(gl.memories.list({ tier, pageSize: 1 }));
    assert.deepEqual(ofTier.map((m) => m.path), memories.filter((m) => m.tier === tier).map((m) => m.path));
    assert.ok(!(await collect(gl.memories.list({ tier: "working" }))).length);
    await gl.namespaces.delete("ts-pages");
  });

  test("add waits for its job, and every add carries an Idempotency-Key", async () => {
    const { gl, sent } = recorded({ namespace: "ts-writes" });
    await fresh(gl, "ts-writes");
    const done = await gl.memories.add(CAMERA, { wait: true });
    assert.equal(done.status, "done");
    assert.ok(done.commit && done.finished);
    const accepted = await gl.memories.add(SISTER);
    assert.ok(["queued", "running", "done"].includes(accepted.status));
    assert.equal((await gl.jobs.wait(accepted.id)).status, "done");

    const keys = sent.filter(([method, path]) => method === "POST" && path === "/v1/memories").map(([, , h]) => h["Idempotency-Key"]);
    assert.equal(keys.length, 2);
    assert.ok(keys.every(Boolean) && keys[0] !== keys[1], keys.join());

    // The same key and body: the same job, not a second one.
    const again = await gl.memories.add(SISTER, { idempotencyKey: "ts-idem-1" });
    const repeat = await gl.memories.add(SISTER, { idempotencyKey: "ts-idem-1" });
    assert.equal(repeat.id, again.id);
    const reused = await rejects(
      gl.memories.add("Something else entirely.", { idempotencyKey: "ts-idem-1" }),
      ConflictError,
      "idempotency_key_reused",
    );
    assert.equal(reused.status, 409);
    assert.equal((await collect(gl.jobs.list())).length, 3);
    await gl.namespaces.delete("ts-writes");
  });

  test("another account's jobs and memories are not found", { skip: !OTHER_KEY }, async () => {
    const gl = new GitLoom({ baseUrl: BASE_URL, apiKey: API_KEY, namespace: "ts-tenant" });
    await fresh(gl, "ts-tenant");
    const job = await gl.memories.add(CAMERA, { wait: true });
    const globex = new GitLoom({ baseUrl: BASE_URL, apiKey: OTHER_KEY, namespace: "ts-tenant" });
    await fresh(globex, "ts-tenant");
    assert.equal((await globex.whoami()).account, "globex");
    await rejects(globex.jobs.get(job.id), NotFoundError, "job_not_found");
    await rejects(globex.memories.get(job.result.created[0]), NotFoundError, "memory_not_found");
    assert.deepEqual((await globex.retrieve("which camera did I buy")).results, []);
    assert.deepEqual(await collect(globex.memories.list()), []);
    await globex.namespaces.delete("ts-tenant");
    await gl.namespaces.delete("ts-tenant");
  });
});
