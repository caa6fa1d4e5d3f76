// The activity page (/activity?key=ADDR&op=OP&namespace=NS&memory=ID): the owner's access log,
// newest first, page by page — which agent (key) did what to which memories, and from where.
// Filters by agent, operation and namespace; with `memory`, which agents read or changed that
// memory (the memories page links here). Every request is signed in this browser by the owner
// key; the dashboard forwards it to the relayer.
import { namespaces, relayerRequest } from "./wallet.js";
import { action, agentNames, card, h, onPick, render, short, shownName } from "./ui.js";

const PAGE_SIZE = 50;
const OPERATIONS = [
  "remember",
  "recall",
  "get",
  "list",
  "update",
  "erase",
  "restore",
  "ask",
  "analyze",
  "export",
  "import",
];
/** The operations that show a memory's text to whoever asked. */
const READS = new Set(["recall", "get", "list", "ask", "export"]);

const when = (iso) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** A select of `options` ([value, label]), `chosen` selected, labelled `label`. */
function picker(id, label, options, chosen) {
  const select = h("select", { id, name: id });
  for (const [value, text] of options) {
    select.append(h("option", { value, selected: value === chosen }, text));
  }
  return { select, field: h("div", { class: "filter" }, h("label", { for: id }, label), select) };
}

/** The page of `session` (the wallet and its account), filtered as the URL says. */
export async function activity({ wallet, owned }) {
  const params = new URLSearchParams(location.search);
  const filter = {
    key: params.get("key") ?? "",
    op: params.get("op") ?? "",
    namespace: params.get("namespace") ?? "",
    memory: params.get("memory") ?? "",
  };
  document.title = filter.memory ? "svc — who read this memory" : "svc — activity";
  const config = await (await fetch("/api/config")).json();
  const signed = (path) =>
    relayerRequest(wallet, {
      method: "GET",
      path,
      audience: config.audience,
      accountId: owned.id,
    });

  const nameOf = agentNames(owned, wallet);
  const agents = picker("filter-key", "Agent", [
    ["", "All agents"],
    ...owned.delegate_keys.map((k) => [k.address, nameOf(k)]),
    [wallet.address, "You (owner key)"],
  ], filter.key);
  /** A key the log names that is no longer on the account (or the URL's), offered too. */
  const offer = (address, text) => {
    if ([...agents.select.options].some((option) => option.value === address)) return;
    agents.select.append(h("option", { value: address, selected: address === filter.key }, text));
  };
  if (filter.key) offer(filter.key, short(filter.key));
  const operations = picker(
    "filter-op",
    "Operation",
    [["", "All operations"], ...OPERATIONS.map((op) => [op, op])],
    filter.op,
  );
  const spaces = picker(
    "filter-namespace",
    "Namespace",
    [["", "All namespaces"]],
    filter.namespace,
  );
  if (filter.namespace) {
    spaces.select.append(
      h("option", { value: filter.namespace, selected: true }, shownName(filter.namespace)),
    );
  }
  namespaces({ wallet, owned }).then(({ namespaces: known }) => {
    for (const { namespace } of known) {
      if (namespace !== filter.namespace) {
        spaces.select.append(h("option", { value: namespace }, shownName(namespace)));
      }
    }
  }, () => {});
  for (const { select } of [agents, operations, spaces]) {
    onPick(select, () => {
      const next = new URLSearchParams();
      for (
        const [name, value] of [
          ["key", agents.select.value],
          ["op", operations.select.value],
          ["namespace", spaces.select.value],
          ["memory", filter.memory],
        ]
      ) if (value) next.set(name, value);
      location.search = next.toString() ? `?${next}` : "";
    });
  }

  const body = h("tbody", {});
  // Hidden until a page of the log shows entries.
  const table = h(
    "table",
    { class: "activity", hidden: "" },
    h("caption", { class: "sr-only" }, "Access log"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["When", "Operation", "Agent", "Namespace", "Memories", "Client"].map((title) =>
          h("th", { scope: "col" }, title)
        ),
      ),
    ),
    body,
  );
  const status = h("p", { class: "empty", role: "status" });
  const more = h("div", { class: "actions" });
  const readers = h("div", {});
  const seen = [];

  function row(entry) {
    const count = entry.memory_ids.length;
    return h(
      "tr",
      { "data-id": entry.id, tabindex: "-1" },
      h("td", {}, h("time", { datetime: entry.at, title: entry.at }, when(entry.at))),
      // `data-label`: the column's name, shown before the value on a phone (no header row).
      h("td", { "data-label": "Operation" }, entry.op),
      h(
        "td",
        { class: "agent", "data-label": "Agent", title: entry.key.address },
        nameOf(entry.key),
      ),
      h("td", { class: "mono namespace", "data-label": "Namespace" }, shownName(entry.namespace)),
      h(
        "td",
        { class: "right", "data-label": "Memories", title: entry.memory_ids.join("\n") },
        count === 1 ? short(entry.memory_ids[0]) : count === 0 ? "none" : `${count} memories`,
      ),
      h("td", { class: "mono", "data-label": "Client" }, entry.client),
    );
  }

  /** With `memory`: the agents that read it, from the entries shown so far. */
  function showReaders() {
    if (!filter.memory) return;
    const read = [...new Set(seen.filter((e) => READS.has(e.op)).map((e) => nameOf(e.key)))];
    readers.replaceChildren(
      h(
        "p",
        { class: "readers" },
        read.length === 0
          ? "No agent has read this memory (in the log kept)."
          : `Read by: ${read.join(", ")}.`,
      ),
    );
  }

  async function page(cursor) {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
    if (cursor) query.set("cursor", cursor);
    const answer = await signed(`/api/access-log?${query}`);
    seen.push(...answer.entries);
    const rows = answer.entries.map(row);
    body.append(...rows);
    // Load more is gone from under the keyboard: the first new entry takes the focus.
    if (cursor) rows[0]?.focus();
    for (const { key } of answer.entries) offer(key.address, `${nameOf(key)} (removed)`);
    table.hidden = seen.length === 0;
    status.textContent = seen.length === 0
      ? "No activity matches."
      : `Showing ${seen.length} ${seen.length === 1 ? "entry" : "entries"}, newest first.`;
    showReaders();
    more.replaceChildren(
      answer.next_cursor
        ? action("Load more", () => page(answer.next_cursor), {
          kind: "secondary",
          busy: "Loading…",
        })
        : "",
    );
  }

  const title = filter.memory ? "Who read this memory" : "Activity";
  const intro = filter.memory
    ? h(
      "p",
      {},
      "Every request that touched memory ",
      h("span", { class: "mono" }, filter.memory),
      ". ",
      h("a", { href: "/activity" }, "All activity"),
    )
    : h(
      "p",
      {},
      "What each agent did with your memories: when, which operation, which memories and from " +
        "where. Never what was asked or what a memory says.",
    );
  render(
    card(
      title,
      intro,
      h("div", { class: "filters" }, agents.field, operations.field, spaces.field),
      readers,
      status,
      h("div", {
        class: "table-scroll",
        tabindex: "0",
        role: "region",
        "aria-label": "Access log entries",
      }, table),
      more,
    ),
  );
  try {
    await page();
  } catch (error) {
    status.textContent = `Cannot read the activity: ${error.message}`;
  }
}
