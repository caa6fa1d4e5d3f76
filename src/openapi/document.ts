/**
 * The OpenAPI 3.1 document of a route table, written from what the routes declare: their
 * method and path, the `input` shapes the kernel parses requests with (`src/http/fields.ts`),
 * whether they are signed and the scope they need, and their `doc` (summary, example request,
 * responses). Nothing in it is written beside the routes.
 *
 * @example
 * ```ts
 * const document = openApiDocument(routes, { version: "0.2.0", apiVersion: "1" });
 * document.paths["/api/recall"].post.requestBody; // the recall body's JSON Schema
 * ```
 */
import { ERROR_STATUS } from "../errors.ts";
import type { JsonSchema } from "../http/fields.ts";
import type { Route, RouteDoc } from "../http/router.ts";

/** What the document needs of a route (every `Route` has it). */
export type DescribedRoute = Pick<
  Route,
  | "method"
  | "pattern"
  | "signed"
  | "operations"
  | "access"
  | "ownerKey"
  | "streamBody"
  | "maxBodyBytes"
  | "input"
  | "doc"
>;

/** The document's `info`. */
export interface OpenApiInfo {
  /** The relayer's version. */
  version: string;
  /** The HTTP API's version (`/version`'s `apiVersion`). */
  apiVersion: string;
}

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, Record<string, unknown>>;
  tags: { name: string }[];
};

/** One operation of the document. */
export type OpenApiOperation = Record<string, unknown> & {
  operationId: string;
  parameters?: Record<string, unknown>[];
  requestBody?: { content: Record<string, { schema?: JsonSchema; example?: unknown }> };
  responses: Record<string, unknown>;
};

const JSON_TYPE = "application/json";
const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** The errors a route has by its kind, added to those its `doc` lists. */
const STANDARD_ERRORS: Record<string, { name: string; description: string }> = {
  400: {
    name: "BadRequest",
    description: "A missing or invalid field or header; the sentence names it.",
  },
  401: {
    name: "Unauthorized",
    description: "The signed request was refused; `reason` names the check that failed.",
  },
  403: {
    name: "Forbidden",
    description: "The key's account is deactivated, or the key's scope does not allow this " +
      '(`reason: "missing_scope"`, `scope` names what is missing).',
  },
  404: { name: "NotFound", description: "Nothing here by this id, or it is another owner's." },
  408: { name: "RequestTimeout", description: "The body did not arrive in time." },
  409: { name: "Replayed", description: "The nonce, or the nonce-less signed POST, was used." },
  413: { name: "PayloadTooLarge", description: "The body is over the route's limit." },
  415: { name: "UnsupportedMediaType", description: "The body is not `application/json`." },
  429: {
    name: "RateLimited",
    description: "Too many requests from this address; see `Retry-After`.",
  },
};

const SIGNED_HEADERS: Record<string, { description: string; pattern?: string }> = {
  "x-nonce": {
    description: "Single-use value (16–64 of `[A-Za-z0-9-_]`), appended to the signed message.",
    pattern: "^[A-Za-z0-9_-]{16,64}$",
  },
  "x-signature-version": { description: "`2` to sign the audience and nonce too." },
  "x-audience": { description: "The relayer's origin (signature version 2)." },
  "x-account-id": { description: "The account to act in (`0x…`)." },
  "x-delegate-key": {
    description: "The delegate private key, for a Seal cipher's decryption only; never logged.",
  },
};

function parameterName(header: string): string {
  return header.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
}

function components(): OpenApiDocument["components"] {
  const responses: Record<string, unknown> = {};
  for (const { name, description } of Object.values(STANDARD_ERRORS)) {
    responses[name] = { description, content: { [JSON_TYPE]: { schema: ERROR_REF } } };
  }
  const parameters: Record<string, unknown> = {};
  for (const [header, { description, pattern }] of Object.entries(SIGNED_HEADERS)) {
    parameters[parameterName(header)] = {
      name: header,
      in: "header",
      required: false,
      description,
      schema: pattern ? { type: "string", pattern } : { type: "string" },
    };
  }
  const signedHeader = (name: string, description: string) => ({
    type: "apiKey",
    in: "header",
    name,
    description,
  });
  return {
    schemas: {
      Error: {
        type: "object",
        description: "Every error: a sentence, a stable code and the request's id, with " +
          "`reason`, `retry_after_seconds` and the like where they help.",
        required: ["error", "code", "request_id"],
        properties: {
          error: { type: "string" },
          code: { enum: Object.keys(ERROR_STATUS) },
          request_id: { type: "string" },
          reason: { type: "string" },
          retry_after_seconds: { type: "integer" },
        },
      },
      JsonRpcError: {
        type: "object",
        description: "An error of the MCP transports, as MCP clients read it: JSON-RPC 2.0.",
        required: ["jsonrpc", "error", "id"],
        properties: {
          jsonrpc: { const: "2.0" },
          error: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "integer" },
              message: { type: "string" },
              data: { type: "object" },
            },
          },
          id: { type: ["string", "integer", "null"] },
        },
      },
    },
    responses,
    parameters,
    securitySchemes: {
      svcPublicKey: signedHeader("x-public-key", "The signing Ed25519 public key, 64 hex."),
      svcSignature: signedHeader(
        "x-signature",
        "Ed25519 signature (128 hex) of `{timestamp}.{METHOD}.{path with query}.{sha256 hex " +
          "of the body}` (then `.{nonce}` with `x-nonce`; version 2 adds the audience). The " +
          "requirement's scopes name the operation a scoped delegate key needs.",
      ),
      svcTimestamp: signedHeader("x-timestamp", "Unix seconds, within 300 s of the relayer's."),
      mcpBearer: {
        type: "http",
        scheme: "bearer",
        description: "The delegate private key (64 hex); never in a URL.",
      },
      mcpAccount: signedHeader("x-svc-account-id", "The account id (`0x…`)."),
      metricsToken: {
        type: "http",
        scheme: "bearer",
        description: "`SVC_METRICS_TOKEN`, when it is set.",
      },
    },
  };
}

/** `postApiRememberBulkStatus`, `getApiMemoriesById`. */
function operationId(method: string, pathname: string): string {
  const words = pathname.split(/[^A-Za-z0-9:_]+/).filter(Boolean).map((word) =>
    word.startsWith(":") ? `by_${word.slice(1)}` : word
  );
  return method.toLowerCase() +
    words.join("_").replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

/** The schema with its description moved out, for a parameter that carries it. */
function split(schema: JsonSchema): { schema: JsonSchema; description?: string } {
  const { description, ...rest } = schema;
  return { schema: rest, description: description as string | undefined };
}

function parameters(route: DescribedRoute): Record<string, unknown>[] {
  const { input, doc } = route;
  const list: Record<string, unknown>[] = [];
  for (const [, name] of route.pattern.pathname.matchAll(/:(\w+)/g)) {
    const member = input?.params?.members[name];
    const schema = member?.kind === "field" ? member.schema() : { type: "string" };
    list.push({
      name,
      in: "path",
      required: true,
      ...split(schema),
      ...(doc?.example?.params?.[name] !== undefined && { example: doc.example.params[name] }),
    });
  }
  for (const [key, member] of Object.entries(input?.query?.members ?? {})) {
    const fields = member.kind === "group"
      ? Object.entries(member.properties()).map(([name, schema]) => ({
        name,
        schema,
        required: false,
      }))
      : [{ name: member.param ?? key, schema: member.schema(), required: member.required }];
    for (const { name, schema, required } of fields) {
      const example = doc?.example?.query?.[name];
      list.push({
        name,
        in: "query",
        required,
        ...split(schema),
        ...(example !== undefined && { example }),
      });
    }
  }
  if (route.signed) {
    for (const header of Object.keys(SIGNED_HEADERS)) {
      list.push({ $ref: `#/components/parameters/${parameterName(header)}` });
    }
  }
  return list;
}

function requestBody(route: DescribedRoute): Record<string, unknown> | undefined {
  const { input, doc } = route;
  if (input?.body) {
    const example = doc?.example?.body;
    return {
      required: true,
      content: {
        [JSON_TYPE]: { schema: input.body.schema(), ...(example !== undefined && { example }) },
      },
    };
  }
  if (!doc?.body) return undefined;
  const { description, contentType, example, schema } = doc.body;
  return {
    required: true,
    description,
    content: {
      [contentType ?? JSON_TYPE]: {
        ...(schema && { schema }),
        ...(example !== undefined && { example }),
      },
    },
  };
}

function responses(route: DescribedRoute, hasBody: boolean): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (
    const [status, { description, example, contentType, schema }] of Object.entries(
      route.doc?.responses ?? {},
    )
  ) {
    const content = example !== undefined || contentType || schema
      ? {
        [contentType ?? JSON_TYPE]: {
          ...(schema && { schema }),
          ...(example !== undefined && { example }),
        },
      }
      : Number(status) >= 400
      ? { [JSON_TYPE]: { schema: ERROR_REF } }
      : undefined;
    answers[status] = { description, ...(content && { content }) };
  }
  const standard = new Set<number>();
  if (route.input) standard.add(400);
  if (hasBody) [400, 408, 413, 415].forEach((s) => standard.add(s));
  if (/:\w/.test(route.pattern.pathname)) standard.add(404);
  // A signed route reads a header of its own too (`x-delegate-key`).
  if (route.signed) [400, 401, 403, 409, 429].forEach((s) => standard.add(s));
  for (const status of [...standard].sort((a, b) => a - b)) {
    answers[status] ??= { $ref: `#/components/responses/${STANDARD_ERRORS[status].name}` };
  }
  answers.default = {
    description: "Any other error (500 `internal`, 503 `backend_unavailable`, ...).",
    content: { [JSON_TYPE]: { schema: ERROR_REF } },
  };
  return answers;
}

function security(route: DescribedRoute): Record<string, string[]>[] {
  if (route.signed) {
    return [{ svcPublicKey: [], svcSignature: [...route.operations], svcTimestamp: [] }];
  }
  return route.doc?.security ?? [];
}

function operation(route: DescribedRoute): OpenApiOperation {
  const doc: RouteDoc | undefined = route.doc;
  const body = requestBody(route);
  const params = parameters(route);
  return {
    operationId: operationId(route.method, route.pattern.pathname),
    summary: doc?.summary ?? `${route.method} ${route.pattern.pathname}`,
    ...(doc?.description && { description: doc.description }),
    tags: [doc?.tag ?? "undocumented"],
    ...(params.length > 0 && { parameters: params }),
    ...(body && { requestBody: body }),
    responses: responses(route, body !== undefined),
    security: security(route),
    ...(route.operations.length > 0 && { "x-svc-scope": route.operations }),
    ...(route.ownerKey && { "x-svc-owner-key": true }),
    ...(route.access && { "x-svc-access-log": route.access }),
    ...(route.maxBodyBytes && { "x-svc-max-body-bytes": route.maxBodyBytes }),
    ...(!doc && { "x-svc-undocumented": true }),
  } as OpenApiOperation;
}

/** The OpenAPI 3.1 document of `routes` (see the module comment). */
export function openApiDocument(
  routes: readonly DescribedRoute[],
  info: OpenApiInfo,
): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const path = route.pattern.pathname.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
    tags.add(route.doc?.tag ?? "undocumented");
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc relayer",
      version: info.version,
      description: "Private, encrypted memory for AI agents. Routes under `/api/` are signed " +
        "with a delegate key (see the `svcSignature` scheme); a scoped key needs the scope " +
        "named by the operation's `x-svc-scope`. Errors are JSON (`Error`).",
      "x-api-version": info.apiVersion,
    },
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: components(),
  };
}
