// The dashboard's building blocks: elements, the status line, buttons that run an action,
// cards and pages. Every text goes into the page as text, never as HTML.
const main = document.querySelector("main");
const status = document.querySelector("#status");

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value !== false && value !== undefined) element.setAttribute(name, value);
  }
  element.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return element;
}

export function say(message, tone = "info") {
  status.textContent = message;
  status.dataset.tone = tone;
}

// What shows as nothing (zero-width spaces, direction marks and controls, tag characters…),
// but the joiners and variation selectors that change the character before them: the set
// namespaces first written may not hold (`INVISIBLE` in src/http/validate.ts).
const INVISIBLE =
  /(?![\u200c\u200d\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}])[\p{Default_Ignorable_Code_Point}\u0080-\u009f\ufff9-\ufffb]/gu;

/**
 * A name (a namespace stored before such names were refused) with what shows as nothing
 * written as `\u200b`-style escapes, as the CLI shows it: two names that look alike differ.
 */
export function shownName(name) {
  return name.replace(INVISIBLE, (char) => {
    const code = char.codePointAt(0).toString(16);
    return char.length > 1 ? `\\u{${code}}` : `\\u${code.padStart(4, "0")}`;
  });
}

export function short(value) {
  return value.length > 20 ? `${value.slice(0, 10)}…${value.slice(-8)}` : value;
}

/**
 * Who a key (`{ address, label }`) is: the owner key, else its label now among the account's
 * (`owned`) keys, else the label it had, else its address. A label two keys share (a removed
 * key's among them) is told apart by the address.
 */
export function agentNames(owned, wallet) {
  // A label stored before invisible characters were refused shows them, escaped.
  const shown = (label) => label && shownName(label);
  const labels = owned.delegate_keys.map((k) => shown(k.label));
  const shared = new Set(labels.filter((label, i) => label && labels.indexOf(label) !== i));
  const named = (label, address) =>
    !label ? short(address) : shared.has(label) ? `${label} (${short(address)})` : label;
  const names = new Map(
    owned.delegate_keys.map((k) => [k.address, named(shown(k.label), k.address)]),
  );
  names.set(wallet.address, "You (owner key)");
  return (key) => {
    const label = shown(key.label);
    return names.get(key.address) ??
      (label && labels.includes(label)
        ? `${label} (${short(key.address)})`
        : named(label, key.address));
  };
}

/** A button that runs `action`, disabled and labelled busy meanwhile. */
export function action(label, run, { kind = "primary", busy = "Working…" } = {}) {
  const button = h("button", { type: "button", class: kind });
  button.textContent = label;
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    button.textContent = busy;
    // What an earlier action said is not this one's.
    say("");
    try {
      await run();
    } catch (error) {
      say(error.message, "error");
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      button.textContent = label;
      // Focus lost to the page (the button disabled meanwhile, or removed or hidden by its own
      // action) goes back to the button, or else to the page's content.
      if (document.activeElement === document.body || !document.activeElement) {
        (button.isConnected && !button.hidden ? button : main).focus();
      }
    }
  });
  return button;
}

/**
 * Calls `go` when the user picks another option of `select`: at once with the pointer; with the
 * keyboard, whose arrow keys step through the options, on Enter or on leaving the field.
 */
export function onPick(select, go) {
  let stepping = false;
  const pick = () => {
    stepping = false;
    if (select.value !== select.dataset.shown) go();
  };
  select.dataset.shown = select.value;
  select.addEventListener("keydown", (event) => {
    if (event.key === "Enter") pick();
    else if (event.key !== "Tab") stepping = true;
  });
  select.addEventListener("change", () => stepping || pick());
  select.addEventListener("blur", () => stepping && pick());
}

export function card(title, ...content) {
  return h(
    "section",
    { class: "card", "aria-labelledby": slug(title) },
    h("h2", { id: slug(title), tabindex: "-1" }, title),
    ...content,
  );
}

export const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");

export function field(label, value, { mono = true } = {}) {
  return [h("dt", {}, label), h("dd", { class: mono ? "mono" : "", title: value }, value)];
}

/** Replaces the page's content; `{error: true}` last marks it as an error page. */
export function render(...sections) {
  const options = sections.at(-1) instanceof Node ? {} : sections.pop();
  main.replaceChildren(...sections);
  main.dataset.state = options.error ? "error" : "ok";
  main.querySelector("h2")?.focus?.();
}
