/**
 * Vercel AI SDK (`ai`) tools: `remember` and `recall`, bound to one end user's
 * namespace. Import from `gitloom-client/ai`; needs `ai` (v6) and `zod` installed
 * beside this package (optional peer dependencies: the core client has none).
 *
 * ```js
 * import { generateText, stepCountIs } from "ai";
 * import { memoryTools } from "gitloom-client/ai";
 * const tools = memoryTools(gl, { namespace: "user-8213" });
 * await generateText({ model, tools, stopWhen: stepCountIs(3), prompt });
 * ```
 *
 * The namespace is fixed when the tools are made: the model chooses what to remember
 * and what to ask, never whose memory it reads.
 */
import { tool } from "ai";
import { z } from "zod";

import type { GitLoom } from "./client.js";

export interface MemoryToolsOptions {
  /** The end user's namespace (created beforehand). */
  namespace: string;
  /** Memories `recall` returns, 1-100; default 5. */
  limit?: number;
  /** `remember` resolves once its job is done (what it stored is then recallable);
   * `false`: once the service accepted it. Default `true`. */
  wait?: boolean;
}

export function memoryTools(client: GitLoom, options: MemoryToolsOptions) {
  const { namespace, limit = 5, wait = true } = options;
  return {
    remember: tool({
      description:
        "Remember something the user said about themselves, their plans or their world, for later conversations.",
      inputSchema: z.object({
        fact: z.string().min(1).describe("What to remember, in the user's words (one or a few sentences)."),
      }),
      execute: async ({ fact }) => {
        const job = await client.memories.add(fact, { namespace, wait });
        const written = (job.result?.created?.length ?? 0) + (job.result?.rewritten?.length ?? 0);
        return { status: job.status, job: job.id, written };
      },
    }),
    recall: tool({
      description: "Look up what is known about the user that answers a question.",
      inputSchema: z.object({
        question: z.string().min(1).describe('The question to answer, e.g. "what camera do I own".'),
      }),
      execute: async ({ question }) => {
        const found = await client.retrieve(question, { namespace, limit });
        return {
          memories: found.results.map((result) => ({
            path: result.path,
            content: result.content,
            tier: result.tier,
            tags: result.tags,
          })),
        };
      },
    }),
  };
}
