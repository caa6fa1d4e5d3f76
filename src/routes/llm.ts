/** Analyze and ask routes: parse, validate, call the LLM service, serialize. */
import { SvcError } from "../errors.ts";
import { jsonResponse } from "../http/respond.ts";
import { route } from "../http/router.ts";
import { integerField, namespaceField, requiredText } from "../http/validate.ts";
import type { LlmService } from "../services/llm.ts";
import { type HandlerContext, provenanceOf } from "./context.ts";

export const MAX_ANALYZE_BYTES = 64 * 1024;
export const MAX_QUESTION_BYTES = 64 * 1024;

/** The routes; without a language model they answer 501 with the reason. */
export function llmRoutes(service: LlmService | undefined) {
  const needed = () => {
    if (!service) {
      throw new SvcError("not_implemented", "No language model is configured (set SVC_LLM)");
    }
    return service;
  };
  return [
    route<HandlerContext>("POST", "/api/analyze", async ({ caller, json, request, touch }) => {
      const body = json();
      const text = requiredText(body, "text", MAX_ANALYZE_BYTES);
      const namespace = namespaceField(body);
      touch(namespace);
      const analysis = await needed().analyze(caller.owner, text, namespace, {
        signal: request.signal,
        rememberedBy: provenanceOf(caller),
      });
      touch(namespace, analysis.job_ids);
      return jsonResponse(202, analysis);
    }, { signed: true, operation: "write", access: "analyze" }),

    route<HandlerContext>("POST", "/api/ask", async ({ caller, json, request, touch }) => {
      const body = json();
      const question = requiredText(body, "question", MAX_QUESTION_BYTES);
      const limit = integerField(body, "limit", 5, 1, 100);
      const namespace = namespaceField(body);
      touch(namespace);
      const answer = await needed().ask(caller.owner, question, limit, namespace, {
        credentials: caller.credentials,
        signal: request.signal,
      });
      touch(namespace, answer.memories.map((memory) => memory.id));
      return jsonResponse(200, answer);
    }, { signed: true, operation: "read", access: "ask" }),
  ];
}
