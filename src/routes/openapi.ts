/** `GET /openapi.json`: the OpenAPI 3.1 document of the relayer's own route table. */
import { type DescribedRoute, openApiDocument } from "../openapi/document.ts";
import { API_VERSION, VERSION } from "../version.ts";
import { route } from "./context.ts";

/** The route; `routes` is the table it describes (itself included), read at the first request. */
export function openApiRoutes(routes: () => readonly DescribedRoute[]) {
  let document: string | undefined;
  return [
    route("GET", "/openapi.json", () => {
      document ??= JSON.stringify(
        openApiDocument(routes(), { version: VERSION, apiVersion: API_VERSION }),
      );
      return Promise.resolve(
        new Response(document, {
          headers: { "content-type": "application/json; charset=utf-8" },
        }),
      );
    }, {
      doc: {
        tag: "service",
        summary: "This document: every route of the relayer, generated from its route table",
        responses: { 200: { description: "An OpenAPI 3.1 document." } },
      },
    }),
  ];
}
