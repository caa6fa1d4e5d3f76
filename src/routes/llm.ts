/** Analyze and ask routes: parse, validate, call the LLM service, serialize. */
import { SvcError } from "../errors.ts";
import { jsonResponse } from "../http/respond.ts";
import { integer, object, text } from "../http/fields.ts";
import { namespace } from "../http/memory_fields.ts";
import type { LlmService } from "../services/llm.ts";
import { provenanceOf, route } from "./context.ts";
import { EXAMPLE_ID, EXAMPLE_OWNER, EXAMPLE_RESULT } from "./examples.ts";
import { MAX_ANALYZE_BYTES } from "../text_limits.ts";

const MAX_QUESTION_BYTES = 64 * 1024;

const ANALYZE = object({
  text: text({
    max: MAX_ANALYZE_BYTES,
    description: "A text (a conversation, notes) to extract facts from. At most 64 KiB.",
  }),
  namespace: namespace({ written: true }),
});
const ASK = object({
  question: text({ max: MAX_QUESTION_BYTES, description: "The question. At most 64 KiB." }),
  limit: integer({ fallback: 5, min: 1, max: 100, description: "Memories to answer from." }),
  namespace: namespace(),
});
const NO_MODEL = { description: "No language model is configured (`SVC_LLM=none`)." };

/** The routes; without a language model they answer 501 with the reason. */
export function llmRoutes(service: LlmService | undefined) {
  const needed = () => {
    if (!service) {
      throw new SvcError("not_implemented", "No language model is configured (set SVC_LLM)");
    }
    return service;
  };
  return [
    route("POST", "/api/analyze", async ({ caller, input: { body }, request, touch }) => {
      const { text, namespace } = body;
      touch(namespace);
      const analysis = await needed().analyze(caller.owner, text, namespace, {
        credentials: caller.credentials,
        signal: request.signal,
        rememberedBy: provenanceOf(caller),
      });
      touch(namespace, [
        ...analysis.job_ids,
        ...analysis.facts.flatMap((fact) => fact.duplicate_of ?? []),
      ]);
      return jsonResponse(202, analysis);
    }, {
      signed: true,
      operations: ["write"],
      access: "analyze",
      input: { body: ANALYZE },
      doc: {
        tag: "language model",
        summary: "Extract the memorable facts of a text and remember each",
        example: { body: { text: "I moved to Lisbon last year. I keep bees on the roof." } },
        responses: {
          202: {
            description: "The facts, each with its remember job (or the memory it repeats).",
            example: {
              job_ids: [EXAMPLE_ID],
              facts: [{ text: "Keeps bees", job_id: EXAMPLE_ID, status: "pending" }],
              fact_count: 1,
              status: "pending",
              owner: EXAMPLE_OWNER,
            },
          },
          501: NO_MODEL,
        },
      },
    }),

    route("POST", "/api/ask", async ({ caller, input: { body }, request, touch }) => {
      const { question, limit, namespace } = body;
      touch(namespace);
      const answer = await needed().ask(caller.owner, question, limit, namespace, {
        credentials: caller.credentials,
        keyAddress: caller.address,
        signal: request.signal,
      });
      touch(namespace, answer.memories.map((memory) => memory.id));
      return jsonResponse(200, answer);
    }, {
      signed: true,
      operations: ["read"],
      access: "ask",
      input: { body: ASK },
      doc: {
        tag: "language model",
        summary: "Answer a question from the memories that best match it",
        example: { body: { question: "What do I eat?", limit: 5 } },
        responses: {
          200: {
            description: "The answer and the memories it used.",
            example: {
              answer: 'From your memories: "I am vegetarian" (memory 1).',
              memories_used: 1,
              memories: [EXAMPLE_RESULT],
            },
          },
          501: NO_MODEL,
        },
      },
    }),
  ];
}
