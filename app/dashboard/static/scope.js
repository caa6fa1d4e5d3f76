// Scoped delegate keys on the dashboard: the scope a sign-in link asks for (operations,
// namespaces, expiry), the consent page's controls that narrow it, and a key's scope in words.
// On the wire a scope is {namespaces, operations, expires_at}, each null for no limit.
import { h } from "./ui.js";

/** Every operation, in the relayer's order, with what it lets an agent do. */
export const OPERATIONS = [
  ["read", "Read and search your memories"],
  ["write", "Save, correct and restore memories"],
  ["erase", "Erase memories"],
  ["audit", "Read the access log"],
];
const NAMES = OPERATIONS.map(([name]) => name);
const MAX_NAMESPACES = 32;
const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const UNIT_NAMES = { s: "second", m: "minute", h: "hour", d: "day", w: "week" };

/** The local date of `ms` as a date input takes it (`2026-11-26`). */
function localDate(ms) {
  const at = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
}
const MAX_DURATION_MS = 36_500 * 86_400_000; // 100 years, as `--expires` takes
const PRESETS = [["1 day", 1], ["7 days", 7], ["30 days", 30], ["90 days", 90]];
const DAY = 86_400_000;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const when = (ms) =>
  new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function validNamespace(name) {
  return name !== "" && new TextEncoder().encode(name).length <= 256 && !CONTROL.test(name);
}

/**
 * The scope a sign-in link asks for: `operations=read,write`, `namespace=` once per namespace,
 * `expires=30d` or an ISO time; each absent means no limit. Problems go into `problems`.
 */
export function requestedScope(params, problems) {
  let operations = null;
  if (params.has("operations")) {
    operations = params.get("operations").split(",");
    if (operations.some((op) => !NAMES.includes(op)) || !operations.length) {
      problems.push(`operations must be some of ${NAMES.join(", ")}`);
    }
    operations = NAMES.filter((op) => operations.includes(op));
  }
  let namespaces = null;
  if (params.has("namespace")) {
    namespaces = [...new Set(params.getAll("namespace"))].sort();
    if (namespaces.length > MAX_NAMESPACES || !namespaces.every(validNamespace)) {
      problems.push(`namespace must be 1 to ${MAX_NAMESPACES} names of 1 to 256 bytes`);
    }
  }
  let expires = null;
  if (params.has("expires")) {
    const value = params.get("expires");
    const duration = /^([0-9]{1,9})([smhdw])$/.exec(value);
    const count = duration ? Number(duration[1]) : 0;
    const ms = duration ? count * UNITS[duration[2]] : 0;
    const at = Date.parse(value);
    if (ms > 0 && ms <= MAX_DURATION_MS) {
      const unit = `${UNIT_NAMES[duration[2]]}${count === 1 ? "" : "s"}`;
      expires = { ms, text: `${count} ${unit}` };
    } else if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(value) && at > Date.now()) {
      expires = { at };
    } else {
      problems.push(
        "expires must be a duration such as 30d (at most 100 years) or a future ISO 8601 time",
      );
    }
  }
  return { operations, namespaces, expires };
}

/** When a requested expiry falls if approved now (Unix ms), or null for none. */
const requestedUntil = (expires, now) => expires ? expires.at ?? now + expires.ms : null;

/** What a scope allows, as plain sentences (for the consent page's list). */
export function scopeLines({ operations, namespaces, expires }) {
  const ops = OPERATIONS.filter(([name]) => !operations || operations.includes(name));
  return [
    ...ops.map(([, text]) => text),
    namespaces ? `Only in ${plural(namespaces, "namespace")} ${namespaces.join(", ")}` : (
      "In every namespace"
    ),
    expires
      ? (expires.at ? `Until ${when(expires.at)}` : `For ${expires.text} after you approve`)
      : "With no expiry",
  ];
}

const plural = (list, word) => list.length === 1 ? word : `${word}s`;

/** A key's scope in a few words, for the agents table. */
export function describeKeyScope(key) {
  const ops = key.operations ?? null;
  const parts = [
    ops ? ops.join(", ") : "all operations",
    key.namespaces ? `${plural(key.namespaces, "namespace")} ${key.namespaces.join(", ")}` : (
      "all namespaces"
    ),
    key.expires_at
      ? `${Date.parse(key.expires_at) <= Date.now() ? "expired" : "expires"} ${
        when(Date.parse(key.expires_at))
      }`
      : "no expiry",
  ];
  return parts.join(" · ");
}

/**
 * The controls that narrow a requested scope: the requested operations to untick, the
 * namespaces to keep (or, when all were asked for, to pick), and an expiry no later than the
 * one asked for. `value()` is the approved scope on the wire, or throws an Error saying what
 * to fix; `summary` says in words what approving grants.
 */
export function scopeChooser(requested, known = []) {
  const onChange = () => update();
  const ops = OPERATIONS.filter(([name]) =>
    !requested.operations || requested.operations.includes(name)
  )
    .map(([name, text]) => {
      const box = h("input", { type: "checkbox", name: "operation", value: name, checked: "" });
      box.addEventListener("change", onChange);
      return h("label", { class: "choice" }, box, ` ${text}`);
    });

  // Namespaces: the ones asked for, to untick; or all, or only some picked here.
  const nsBoxes = [];
  const box = (name, checked) => {
    const input = h("input", {
      type: "checkbox",
      name: "namespace",
      value: name,
      checked: checked ? "" : undefined,
    });
    input.addEventListener("change", onChange);
    nsBoxes.push(input);
    return h("label", { class: "choice mono" }, input, ` ${name}`);
  };
  let only = null;
  let more = null;
  let nsControls;
  if (requested.namespaces) {
    nsControls = requested.namespaces.map((name) => box(name, true));
  } else {
    const all = h("input", { type: "radio", name: "ns-mode", value: "all", checked: "" });
    only = h("input", { type: "radio", name: "ns-mode", value: "only" });
    more = h("input", {
      type: "text",
      id: "scope-more-namespaces",
      placeholder: "other namespaces, comma-separated",
      "aria-label": "Other namespaces, comma-separated",
    });
    const picks = h(
      "div",
      { class: "choices indented", hidden: true },
      known.map((name) => box(name, false)),
      more,
    );
    for (const input of [all, only]) input.addEventListener("input", onChange);
    typing(more);
    only.addEventListener("change", () => (picks.hidden = !only.checked));
    all.addEventListener("change", () => (picks.hidden = !only.checked));
    nsControls = [
      h("label", { class: "choice" }, all, " Every namespace"),
      h("label", { class: "choice" }, only, " Only these namespaces:"),
      picks,
    ];
  }

  // Expiry: as asked (or never when nothing was asked), a shorter preset, or a date.
  const now = Date.now();
  const cap = requestedUntil(requested.expires, now);
  const expiry = h("select", { id: "scope-expiry", "aria-labelledby": "scope-how-long" });
  expiry.append(
    h(
      "option",
      { value: "asked" },
      cap === null ? "Never expires" : `As asked: until ${when(cap)}`,
    ),
  );
  for (const [text, days] of PRESETS) {
    if (cap === null || now + days * DAY < cap) {
      expiry.append(h("option", { value: `d${days}` }, `For ${text}`));
    }
  }
  expiry.append(h("option", { value: "date" }, "Until a date…"));
  const date = h("input", { type: "date", id: "scope-expiry-date", hidden: true });
  date.setAttribute("aria-label", "Expiry date (the key stops working at the start of this day)");
  // The key stops at the start of the local day picked: from tomorrow to the day of the cap.
  if (cap !== null) date.max = localDate(cap);
  date.min = localDate(now + DAY);
  expiry.addEventListener("change", () => {
    date.hidden = expiry.value !== "date";
    update();
  });
  typing(date);

  const summary = h("p", { class: "scope-summary", id: "scope-summary", "aria-live": "polite" });
  const group = (legend, id, controls) =>
    h("fieldset", {}, h("legend", { id }, legend), h("div", { class: "choices" }, controls));
  const element = h(
    "div",
    { class: "scope" },
    group("Allow it to", "scope-allow", ops),
    group("Where", "scope-where", nsControls),
    group("For how long", "scope-how-long", [expiry, date]),
  );

  /** A field typed into says what it grants once the typing pauses, not at every key. */
  function typing(field) {
    let timer;
    field.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(update, 600);
    });
    field.addEventListener("change", () => {
      clearTimeout(timer);
      update();
    });
  }

  /** An Error saying what to fix, naming the `fields` to fix it in. */
  function fault(message, fields) {
    return Object.assign(new Error(message), { fields });
  }

  const opBoxes = ops.map((label) => label.querySelector("input"));
  function value() {
    const checked = opBoxes.filter((input) => input.checked).map((input) => input.value);
    if (checked.length === 0) throw fault("Allow at least one thing, or press Deny.", opBoxes);
    const operations = checked.length === NAMES.length ? null : checked;

    let namespaces = null;
    if (requested.namespaces || only?.checked) {
      const picked = nsBoxes.filter((input) => input.checked).map((input) => input.value);
      const typed = (more?.value ?? "").split(",").map((n) => n.trim()).filter((n) => n);
      namespaces = [...new Set([...picked, ...typed])].sort();
      const fields = [...nsBoxes, more].filter(Boolean);
      if (namespaces.length === 0) throw fault("Choose at least one namespace.", fields);
      if (namespaces.length > MAX_NAMESPACES || !namespaces.every(validNamespace)) {
        throw fault(`Choose 1 to ${MAX_NAMESPACES} namespaces of 1 to 256 bytes.`, fields);
      }
    }

    let until = requestedUntil(requested.expires, Date.now());
    if (expiry.value.startsWith("d")) until = Date.now() + Number(expiry.value.slice(1)) * DAY;
    if (expiry.value === "date") {
      if (!date.value) throw fault("Pick the date the key stops working.", [date]);
      until = new Date(`${date.value}T00:00:00`).getTime();
      if (!(until > Date.now())) throw fault("Pick a date in the future.", [date]);
      if (cap !== null && until > requestedUntil(requested.expires, Date.now())) {
        throw fault("Pick a date no later than the one asked for.", [date]);
      }
    }
    return {
      namespaces,
      operations,
      expires_at: until === null ? null : new Date(until).toISOString(),
    };
  }

  function update() {
    for (const field of element.querySelectorAll("[aria-invalid]")) {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
    }
    try {
      const scope = value();
      const until = scope.expires_at ? Date.parse(scope.expires_at) : null;
      const lines = scopeLines({ ...scope, expires: until === null ? null : { at: until } });
      summary.textContent = "It will be able to: " +
        lines.map((line) => line[0].toLowerCase() + line.slice(1)).join("; ") + ".";
      summary.dataset.state = "ok";
    } catch (error) {
      summary.textContent = error.message;
      summary.dataset.state = "error";
      for (const field of error.fields ?? []) {
        field.setAttribute("aria-invalid", "true");
        field.setAttribute("aria-describedby", summary.id);
      }
    }
  }
  update();
  return { element, summary, value };
}
