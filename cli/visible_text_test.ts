import assert from "node:assert/strict";
import { visible, visibleName } from "./visible_text.ts";

Deno.test("visible shows control characters and bidi overrides as escapes, but those kept", () => {
  assert.equal(visible("evil \x1b[2J text\rover"), "evil \\u001b[2J text\\u000dover");
  assert.equal(visible("a\u009b31mb\u0000c\u007f"), "a\\u009b31mb\\u0000c\\u007f");
  assert.equal(visible("\u202eevil\u202c \u2066x\u2069"), "\\u202eevil\\u202c \\u2066x\\u2069");
  assert.equal(visible("two\nlines\tand\ra tab", "\n\t"), "two\nlines\tand\\u000da tab");
  assert.equal(visible("one\nline"), "one\\u000aline");
  // A CRLF line break is kept where line feeds are; a carriage return alone never is.
  assert.equal(visible("dos\r\nline\r", "\n"), "dos\r\nline\\u000d");
  assert.equal(visible("dos\r\nline"), "dos\\u000d\\u000aline");
  // Printable text, right-to-left included, and its marks, is left as it is.
  const plain = "café — 日本語 שלום \u200f ok \\u001b";
  assert.equal(visible(plain), plain);
  assert.equal(visible(visible("\x1b")), "\\u001b", "once escaped, printable");
});

Deno.test("visibleName also shows what prints as nothing, so two names printed alike are one", () => {
  assert.equal(visibleName("bad\u200bns"), "bad\\u200bns");
  assert.equal(visibleName("\u00adsoft\u200f\ufeff"), "\\u00adsoft\\u200f\\ufeff");
  // Tag characters, beyond 16 bits, as one escape each.
  assert.equal(visibleName("work\u{e0041}\u{e0042}"), "work\\u{e0041}\\u{e0042}");
  assert.equal(visibleName("x\x1b[2J"), "x\\u001b[2J", "and what visible shows");
  // Joiners and variation selectors change how the character before them looks: kept.
  const shown = "👩\u200d💻 ✌\ufe0f می\u200cخواهم";
  assert.equal(visibleName(shown), shown);
  assert.equal(visible("bad\u200bns"), "bad\u200bns", "memory texts keep them");
});
