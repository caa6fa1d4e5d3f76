/**
 * The docs' reference tables, generated: the settings of `docs/configuration.md` and
 * `docs/network-mode.md` from the configuration's reader (which settings it reads, in which
 * mode, with which default), the routes of `docs/api.md` from the route table (as
 * `/openapi.json` gives it). A table follows a `<!-- generated: NAME -->` line; the prose of a
 * row (a setting's meaning, a route's answers) is kept from the page, keyed by its first cell.
 * `deno task docs` writes the pages; `docs_reference_test.ts` fails when one is out of date.
 */
import { readConfig } from "../app/config.ts";
import { SettingsReader } from "../src/settings_reader.ts";
import { startTestRelayer } from "./fixtures.ts";

/** What a setting without a meaning on its page is given, and the test refuses. */
export const UNDOCUMENTED = "(not documented yet)";

/** The system's own variables the configuration reads, named in other rows. */
const SYSTEM_VARIABLES = new Set(["HOME", "XDG_CONFIG_HOME", "HF_ENDPOINT"]);

/** One environment per option the reader reads settings for only when it is chosen. */
const EMBEDDED: Record<string, string>[] = [
  {},
  { SVC_STORE: "postgres", SVC_DATABASE_URL: "postgres://db/svc" },
  { SVC_VECTOR_STORE: "lancedb" },
  ...["local", "ollama", "openai", "onnx"].map((SVC_EMBEDDER) => ({ SVC_EMBEDDER })),
  ...["ollama", "openai"].map((SVC_LLM) => ({ SVC_LLM })),
];
const NETWORK = { SVC_CHAIN: "sui", SVC_CIPHER: "seal", SVC_BLOB_STORE: "walrus" };

/** The settings `envs` make the reader read, in order, with the defaults it reads them with. */
function settingsRead(envs: Record<string, string>[]) {
  const names = new Set<string>();
  const defaults = new Map<string, Set<string>>();
  for (const env of envs) {
    const watched = new Proxy(env, {
      get: (target, name) => {
        if (typeof name === "string" && !SYSTEM_VARIABLES.has(name)) names.add(name);
        return target[name as string];
      },
    });
    const read = new SettingsReader(watched);
    readConfig(watched, read);
    for (const [name, value] of read.defaults) {
      defaults.set(name, (defaults.get(name) ?? new Set()).add(value));
    }
  }
  return { names, defaults };
}

type Row = string[];

/** The cells of a Markdown table row (`\|` stays within its cell). */
function cells(line: string): Row {
  return line.trim().replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** `markdown` with the table after `<!-- generated: name -->` made by `make` from its rows. */
function regenerate(markdown: string, name: string, make: (rows: Row[]) => Row[]): string {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`<!-- generated: ${name} -->`);
  if (start < 0) throw new Error(`no "<!-- generated: ${name} -->" line`);
  const first = start + 2; // after the blank line `deno fmt` keeps below a comment
  let end = first;
  while (lines[end]?.startsWith("|")) end++;
  const [header, , ...rows] = lines.slice(first, end).map(cells);
  const table = [header, header.map(() => "---"), ...make(rows)]
    .map((row) => `| ${row.join(" | ")} |`);
  return [...lines.slice(0, first), ...table, ...lines.slice(end)].join("\n");
}

/** `rows` in the page's order, then new names; each kept row's cells given by `cellsOf`. */
function keyed(rows: Row[], names: Iterable<string>, cellsOf: (name: string, kept?: Row) => Row) {
  const kept = new Map(rows.map((row) => [row[0].replace(/^`|`$/g, ""), row]));
  const wanted = new Set(names);
  const order = [...kept.keys()].filter((name) => wanted.has(name));
  for (const name of wanted) if (!order.includes(name)) order.push(name);
  return order.map((name) => [`\`${name}\``, ...cellsOf(name, kept.get(name))]);
}

/** A default cell: as the page words it when it names every default, else the defaults. */
function defaultCell(found: Set<string> | undefined, kept = "—"): string {
  if (!found) return kept;
  const named = [...found].map((value) => `\`${value}\``);
  return named.every((value) => kept.includes(value)) && kept.startsWith(named[0])
    ? kept
    : named.join(" / ");
}

/** `docs/configuration.md` and `docs/network-mode.md` with their settings tables regenerated. */
export function settingsPages(configuration: string, networkMode: string) {
  const embedded = settingsRead(EMBEDDED);
  const network = settingsRead([NETWORK]);
  const networkOnly = [...network.names].filter((name) => !embedded.names.has(name));
  return {
    configuration: regenerate(
      configuration,
      "settings",
      (rows) =>
        keyed(rows, embedded.names, (name, kept) => [
          defaultCell(embedded.defaults.get(name), kept?.[1]),
          kept?.[2] ?? UNDOCUMENTED,
        ]),
    ),
    networkMode: regenerate(
      networkMode,
      "network settings",
      (rows) => keyed(rows, networkOnly, (_, kept) => [kept?.[1] ?? "", kept?.[2] ?? UNDOCUMENTED]),
    ),
  };
}

// deno-lint-ignore no-explicit-any
type Schema = Record<string, any>;

/** A body's fields, the optional ones marked `?` with their defaults and ranges. */
function fieldsOf(schema: Schema): string {
  const required = new Set<string>(schema.required ?? []);
  const either = (schema.allOf ?? []).flatMap((rule: Schema) => rule.oneOf ?? [])
    .map((rule: Schema) => rule.required?.[0]).filter(Boolean) as string[];
  const fields = Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    if (either.includes(name)) return name === either[0] ? [either.join(" \\| ")] : [];
    return [fieldOf(name, field as Schema, required.has(name))];
  });
  return `{${fields.join(", ")}}`;
}

function fieldOf(name: string, field: Schema, required: boolean): string {
  const item = field.items?.type === "object" ? `:[${fieldsOf(field.items)}]` : "";
  const shown = field.default === undefined ? "" : `=${JSON.stringify(field.default)}`;
  // A vector's size is the embedder's; a duration's bound of ten years says nothing.
  const [low, high] = [field.minimum ?? field.minItems, field.maximum ?? field.maxItems];
  const range = low === undefined || low === high || high > 100_000 ? "" : ` (${low}..${high})`;
  return `${name}${item}${required ? "" : "?"}${shown}${range}`;
}

/** What a route takes: its query parameters and its body's fields. */
function requestOf(operation: Schema): string {
  const query = (operation.parameters ?? []).filter((p: Schema) => p.in === "query")
    .map((p: Schema) => p.name);
  const content = operation.requestBody?.content ?? {};
  const body = content["application/json"]?.schema
    ? fieldsOf(content["application/json"].schema)
    : content["application/x-ndjson"]
    ? "JSON lines"
    : "";
  const parts = [query.length ? `\`?${query.join("&")}\`` : "", body && `\`${body}\``];
  return parts.filter(Boolean).join(", ") || "–";
}

/** Who may call a route, from its security requirements. */
function authOf(operation: Schema): string {
  const ways = (operation.security ?? []) as Schema[];
  if (ways.length === 0) return "public";
  if (ways.some((way) => way.metricsToken)) return "loopback, or the metrics token";
  if (ways.some((way) => way.mcpBearer)) return "MCP bearer";
  const scopes = ways.find((way) => way.svcSignature)?.svcSignature as string[];
  return scopes.length ? `signed: ${scopes.map((s) => `\`${s}\``).join(", ")}` : "signed";
}

/** The shape of an example answer: its fields, nested two levels deep. */
function shapeOf(example: unknown, depth = 0): string {
  if (Array.isArray(example)) {
    return example.length && typeof example[0] === "object"
      ? `[${shapeOf(example[0], depth)}]`
      : "[…]";
  }
  if (example === null || typeof example !== "object") return "";
  const fields = Object.entries(example).map(([name, value]) => {
    const inner = depth < 2 ? shapeOf(value, depth + 1) : "";
    return inner && inner !== "{}" ? `${name}:${inner}` : name;
  });
  return `{${fields.join(", ")}}`;
}

/** What a route answers when it succeeds: each status, the shape of its example, its doc. */
function answersOf(operation: Schema): string {
  return Object.entries(operation.responses as Record<string, Schema>)
    .filter(([status]) => /^2/.test(status))
    .map(([status, response]) => {
      const example = response.content?.["application/json"]?.example;
      const shape = example === undefined ? "" : ` \`${shapeOf(example)}\``;
      return `${status}${shape}: ${response.description.replace(/\.$/, "")}`;
    })
    .join("; ");
}

/** The relayer's OpenAPI document, from a relayer in this process. */
export async function openApi(): Promise<Schema> {
  await using relayer = await startTestRelayer();
  return await (await relayer.send("GET", "/openapi.json")).json();
}

/** `docs/api.md` with its routes table regenerated from `document`. */
export function apiPage(api: string, document: Schema): string {
  const routes = Object.entries(document.paths as Record<string, Schema>).flatMap(
    ([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`,
        operation: operation as Schema,
      })),
  ).filter(({ key }) => !key.startsWith("OPTIONS "));
  return regenerate(api, "routes", () =>
    routes.map(({ key, operation }) => [
      `\`${key}\``,
      authOf(operation),
      requestOf(operation),
      answersOf(operation),
    ]));
}

/** Every generated page, by path, as it should read. */
export async function generatedPages(
  read: (path: string) => Promise<string> = (path) => Deno.readTextFile(path),
): Promise<Map<string, string>> {
  const settings = settingsPages(
    await read("docs/configuration.md"),
    await read("docs/network-mode.md"),
  );
  return new Map([
    ["docs/configuration.md", settings.configuration],
    ["docs/network-mode.md", settings.networkMode],
    ["docs/api.md", apiPage(await read("docs/api.md"), await openApi())],
  ]);
}

if (import.meta.main) {
  const pages = await generatedPages();
  for (const [path, text] of pages) await Deno.writeTextFile(path, text);
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", ...pages.keys()] }).output();
}
