// gitloom-client/ai: the Vercel AI SDK tools against a live GitLoom (started by
// tests/clients/test_typescript_client.py), with the real `ai` package: the README
// example runs as written, and the tools stay in the namespace they were made for.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { asSchema } from "ai";
import { GitLoom, NotFoundError } from "gitloom-client";
import { memoryTools } from "gitloom-client/ai";

const BASE_URL = process.env.GITLOOM_TEST_URL;
const API_KEY = process.env.GITLOOM_TEST_API_KEY;
const skip = BASE_URL && API_KEY ? false : "needs a live service: run tests/clients/test_typescript_client.py";
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const README = new URL("../README.md", import.meta.url);
const CALL = { toolCallId: "call-1", messages: [] };

async function fresh(gl, name) {
  await gl.namespaces.delete(name).catch((error) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
  return gl.namespaces.create(name);
}

describe("Vercel AI SDK tools", { skip }, () => {
  test("the README example remembers and recalls through the tools", async () => {
    const text = await readFile(README, "utf8");
    const code = /```js\n([\s\S]*?)```/.exec(text.split("## Vercel AI SDK")[1])[1];
    // Run as an app would: a module of its own, with the package installed beside it.
    const app = await mkdtemp(join(tmpdir(), "gitloom-ai-readme-"));
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
      console.log = (...args) => printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      try {
        await import(pathToFileURL(example).href);
      } finally {
        console.log = log;
      }
      console.log(`AI SDK README example printed:\n${printed.join("\n")}`);
      const [remembered, recalled] = printed;
      assert.equal(JSON.parse(remembered).status, "done");
      assert.equal(JSON.parse(remembered).written, 1);
      assert.match(recalled, /Feedzai/);
    } finally {
      await rm(app, { recursive: true, force: true });
    }
  });

  test("the tools ask the model only for the fact or the question, and stay in their namespace", async () => {
    const gl = new GitLoom({ baseUrl: BASE_URL, apiKey: API_KEY });
    await fresh(gl, "ai-ann");
    await fresh(gl, "ai-bob");
    const ann = memoryTools(gl, { namespace: "ai-ann", limit: 3 });
    const bob = memoryTools(gl, { namespace: "ai-bob" });
    // What the SDK sends the model as each tool's parameters: no namespace among them.
    const remember = await asSchema(ann.remember.inputSchema).jsonSchema;
    const recall = await asSchema(ann.recall.inputSchema).jsonSchema;
    assert.deepEqual(Object.keys(remember.properties), ["fact"]);
    assert.deepEqual(Object.keys(recall.properties), ["question"]);
    assert.deepEqual(remember.required, ["fact"]);

    await ann.remember.execute({ fact: "I bought a Sony A7III camera from Fotocentre in Bengaluru." }, CALL);
    const found = await ann.recall.execute({ question: "what camera do I own" }, CALL);
    assert.match(found.memories[0].content, /Sony A7III/);
    assert.ok(found.memories[0].path.startsWith(found.memories[0].tier + "/"));
    assert.ok(found.memories.length <= 3);
    const other = await bob.recall.execute({ question: "what camera do I own" }, CALL);
    assert.deepEqual(other.memories, []);
  });
});
