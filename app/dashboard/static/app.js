// The svc dashboard: the wallet and account page (/), the connected agents (/agents), the
// memories of a namespace (/memories, in memories.js), the access log (/activity, in
// activity.js) and the MCP sign-in consent page (/connect/mcp, in connect.js); the wallet's and
// account's set-up is session.js. Every text from the URL or the server goes through textContent.
import { namespaces, transact } from "./wallet.js";
import { action, agentNames, card, field, h, render, say, short, shownName } from "./ui.js";
import { memories } from "./memories.js";
import { describeKeyScope } from "./scope.js";
import { activity } from "./activity.js";
import { connect } from "./connect.js";
import { backupPanel, signedIn } from "./session.js";

// ---------------------------------------------------------------- home

async function home() {
  document.title = "svc — your memory";
  const session = await signedIn(home);
  if (!session) return;
  const { wallet, owned } = session;

  const spaces = h("div", {}, h("p", { class: "empty" }, "Loading namespaces…"));
  namespaces(session).then(
    ({ namespaces: list }) => {
      spaces.replaceChildren(
        list.length === 0 ? h("p", { class: "empty" }, "No memories yet.") : h(
          "table",
          {},
          h("caption", { class: "sr-only" }, "Namespaces"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Namespace"),
              h("th", { scope: "col", class: "right" }, "Memories"),
            ),
          ),
          h(
            "tbody",
            {},
            list.map((n) =>
              h(
                "tr",
                {},
                h(
                  "td",
                  { class: "mono" },
                  h(
                    "a",
                    { href: `/memories?${new URLSearchParams({ namespace: n.namespace })}` },
                    shownName(n.namespace),
                  ),
                  n.blind ? [" ", h("span", { class: "tag" }, "operator-blind")] : null,
                  n.erasing ? [" ", h("span", { class: "tag" }, "erase cut short")] : null,
                ),
                h("td", { class: "right" }, String(n.count)),
              )
            ),
          ),
        ),
      );
    },
    (error) =>
      spaces.replaceChildren(
        h("p", { class: "empty" }, `Cannot list namespaces: ${error.message}`),
      ),
  );

  const agents =
    owned.delegate_keys.filter((key) => !key.expires_at || Date.parse(key.expires_at) > Date.now())
      .length;
  const backup = h("div", { hidden: true });
  const show = action("Show backup", () => {
    backup.replaceChildren(...backupPanel(wallet));
    backup.hidden = false;
    show.hidden = true;
    backup.querySelector("button").focus(); // Reveal key, in place of this button
    return Promise.resolve();
  }, { kind: "secondary" });
  render(
    card(
      "Your account",
      h(
        "dl",
        {},
        field("Account", owned.id),
        field("Owner (this wallet)", wallet.address),
        field("Status", owned.active ? "Active" : "Inactive", { mono: false }),
        field(
          "Agents",
          agents === 0 ? "none connected yet" : `${agents} connected`,
          { mono: false },
        ),
      ),
      h(
        "div",
        { class: "actions" },
        h("a", { href: "/agents", class: "button secondary" }, "Manage agents"),
      ),
    ),
    card("Namespaces", spaces),
    card(
      "Backup",
      h(
        "p",
        {},
        "Export the wallet key and keep it somewhere safe: without it, a new browser cannot " +
          "manage this account.",
      ),
      h("div", { class: "actions" }, show),
      backup,
    ),
  );
}

// ---------------------------------------------------------------- agents

async function agents() {
  document.title = "svc — connected agents";
  const session = await signedIn(agents);
  if (!session) return;
  const now = Date.now();
  const expired = (key) => key.expires_at && Date.parse(key.expires_at) <= now;
  const keys = session.owned.delegate_keys;
  const connected = keys.filter((key) => !expired(key));
  const ended = keys.filter(expired);
  render(
    card(
      "Connected agents",
      connected.length === 0
        ? h(
          "p",
          { class: "empty" },
          "No agent is connected yet. Run svc-mcp and call svc_login to connect one.",
        )
        : agentTable(session, connected, "Connected agents", "Revoke"),
    ),
    ...(ended.length === 0 ? [] : [
      card(
        "Expired keys",
        h(
          "p",
          {},
          "These agents' keys have expired: the relayer refuses them. Remove them, or leave " +
            "them to show what was connected.",
        ),
        agentTable(session, ended, "Expired keys", "Remove"),
      ),
    ]),
  );
}

/** A table of delegate keys, each with a button that removes it from the account. */
function agentTable({ wallet, owned }, keys, caption, verb) {
  const nameOf = agentNames(owned, wallet);
  return h(
    "table",
    { class: "agents" },
    h("caption", { class: "sr-only" }, caption),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Label"),
        h("th", { scope: "col" }, "Scope"),
        h("th", { scope: "col" }, "Address"),
        h("th", { scope: "col" }, "Added"),
        h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")),
      ),
    ),
    h(
      "tbody",
      {},
      keys.map((key) => {
        // Its label, told apart by its address from another key's of the same label.
        const name = nameOf(key);
        const labelId = `key-${key.address}`;
        const button = action(verb, async () => {
          const warning = verb === "Revoke" ? " That agent loses access at once." : "";
          if (!confirm(`${verb} "${name}"?${warning}`)) return;
          // Removed meanwhile (in another tab): gone all the same.
          await transact(wallet, {
            kind: "remove_delegate_key",
            account_id: owned.id,
            public_key: key.public_key,
          }).catch((error) => {
            if (error.reason !== "unknown_key") throw error;
          });
          await agents();
          say(`${verb === "Revoke" ? "Revoked" : "Removed"} "${name}".`, "success");
        }, { kind: "danger small", busy: verb === "Revoke" ? "Revoking…" : "Removing…" });
        // Each row's button says whose it is (they share their text): by its label, and its
        // address too where the label does not tell.
        const told = key.label && name === key.label;
        button.setAttribute("aria-describedby", told ? labelId : `${labelId} ${labelId}-address`);
        return h(
          "tr",
          {},
          h("td", { id: labelId }, key.label || "(no label)"),
          h("td", { class: "key-scope", "data-label": "Scope" }, describeKeyScope(key)),
          h(
            "td",
            {
              class: "mono",
              id: `${labelId}-address`,
              title: key.address,
              "data-label": "Address",
            },
            short(key.address),
          ),
          h(
            "td",
            { "data-label": "Added" },
            new Date(key.created_at).toLocaleDateString(undefined, { dateStyle: "medium" }),
          ),
          h(
            "td",
            { class: "right" },
            button,
          ),
        );
      }),
    ),
  );
}

// ---------------------------------------------------------------- memories

async function memoriesPage() {
  document.title = "svc — memories";
  const session = await signedIn(memoriesPage);
  if (session) await memories(session);
}

async function activityPage() {
  document.title = "svc — activity";
  const session = await signedIn(activityPage);
  if (session) await activity(session);
}

const PAGES = {
  "/": home,
  "/agents": agents,
  "/memories": memoriesPage,
  "/activity": activityPage,
  "/connect/mcp": connect,
};
for (const link of document.querySelectorAll("nav a")) {
  if (link.getAttribute("href") === location.pathname) link.setAttribute("aria-current", "page");
}
(PAGES[location.pathname] ?? home)().catch((error) =>
  say(`Something went wrong: ${error.message}`, "error")
);
