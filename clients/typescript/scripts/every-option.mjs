// Calls every method of the built client once with every option it takes, against the
// recording receiver at GITLOOM_RECORDER_URL (which answers each request 404), then
// prints the client's method names per object as one JSON line.
// tests/clients/test_client_parameters.py compares what was sent with /v1/schema.
import { GitLoom } from "../dist/index.js";

const gl = new GitLoom({ baseUrl: process.env.GITLOOM_RECORDER_URL, apiKey: "glk_recorder", maxRetries: 0 });
const ns = { namespace: "n" };
const calls = [
  () => gl.whoami(),
  () =>
    gl.retrieve("q", {
      ...ns,
      limit: 5,
      tier: ["facts"],
      tag: ["t"],
      arms: ["lexical"],
      minSimilarity: 0.1,
      asOf: "abc1234",
      asOfBy: "said",
    }),
  () => gl.namespaces.list(),
  () => gl.namespaces.create("n"),
  () => gl.namespaces.get("n"),
  () => gl.namespaces.delete("n"),
  () => gl.namespaces.export("n", { format: "tar" }),
  () => gl.namespaces.import("n", new Uint8Array([1]), { format: "bundle", replace: true }),
  () => gl.namespaces.changesPage("n", { since: "abc1234", cursor: "c", limit: 5 }),
  () => gl.namespaces.purge("n", { match: "abc" }),
  () =>
    gl.memories.add("hi", { ...ns, sessionId: "s", metadata: { a: 1 }, idempotencyKey: "k" }),
  () => gl.memories.page({ ...ns, tier: "facts", tag: "t", cursor: "c", limit: 5 }),
  () => gl.memories.get("facts/a.md", ns),
  () => gl.memories.delete("facts/a.md", ns),
  () => gl.memories.history("facts/a.md", ns),
  () => gl.memories.blame("facts/a.md", ns),
  () => gl.memories.purge("facts/a.md", ns),
  () => gl.jobs.get("j"),
  () => gl.jobs.page({ ...ns, cursor: "c", limit: 5 }),
  () => gl.jobs.revert("j", { ...ns, force: true }),
];
for (const call of calls) await call().catch(() => undefined);

const methods = (object) =>
  Object.getOwnPropertyNames(Object.getPrototypeOf(object)).filter(
    (name) => name !== "constructor" && !name.startsWith("_") && typeof object[name] === "function",
  );
const internal = new Set(["scope", "namespaceQuery"]); // @internal helpers of GitLoom
console.log(
  JSON.stringify({
    GitLoom: methods(gl).filter((name) => !internal.has(name)),
    namespaces: methods(gl.namespaces),
    memories: methods(gl.memories),
    jobs: methods(gl.jobs),
  }),
);
