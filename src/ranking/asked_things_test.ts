import assert from "node:assert/strict";
import { askedThings, saysName, thingName, thingSpan } from "./asked_things.ts";

Deno.test("thingName: the capitalised words a memory calls a thing by", () => {
  for (
    const [text, thing, name] of [
      ["My car is a Volvo estate.", "car", "Volvo"],
      ["My car is a blue Volvo.", "car", "Volvo"],
      ["Our TV is a 55-inch LG OLED.", "tv", "LG OLED"],
      ["Our boat is called Sea Sprite.", "boat", "Sea Sprite"],
      ["We call our house Rose Villa.", "house", "Rose Villa"],
      ["My road bike is a Cannondale SuperSix, bought used.", "road bike", "Cannondale SuperSix"],
      ["My headphones are Sony WH-1000XM5s.", "headphones", "Sony WH-1000XM5s"],
      ["My laptop is a Dell I got from Priya.", "laptop", "Dell"],
    ]
  ) assert.equal(thingName(text, thing), name, text);
});

Deno.test("thingName: no name where a memory says where, whose or when a thing is", () => {
  for (
    const [text, thing] of [
      ["My flat is in Clifton.", "flat"],
      ["My laptop is a gift from Priya.", "laptop"],
      ["My car is Priya's old Golf.", "car"],
      ["My blood type is O negative.", "blood type"],
      ["My day off is Friday.", "day off"],
      ["I sold my motorbike when Maya was born.", "motorbike"],
      ["I washed my car. Tom came round.", "car"],
      ["The car insurance renews in July.", "car"],
      ["My car is a mess, Priya said.", "car"],
      ["My car is a wreck. Tom borrowed it last week.", "car"],
      ["My car is a total wreck. Honestly I hate it.", "car"],
    ]
  ) assert.equal(thingName(text, thing), undefined, text);
});

Deno.test("thingSpan: where a question says the thing, with its my, our or the", () => {
  const query = "How much did my road bike cost?";
  const [thing] = askedThings(query);
  assert.equal(thing, "road bike");
  const span = thingSpan(query, thing)!;
  assert.equal(query.slice(span.start, span.end), "my road bike");
  const tv = thingSpan("When did we put up Our  TV?", "tv")!;
  assert.equal("When did we put up Our  TV?".slice(tv.start, tv.end), "Our  TV");
  assert.equal(thingSpan("When did we buy the Volvo?", "car"), undefined);
});

Deno.test("saysName: a word of the name as a name, not the common word", () => {
  assert.ok(saysName("The Leaf gets 150 miles on a charge.", "Nissan Leaf"));
  assert.ok(saysName("The Sonys' left cushion is loose.", "Sony WH-1000XM5s"));
  assert.ok(!saysName("The maple leaf is on the Canadian flag.", "Nissan Leaf"));
  assert.ok(!saysName("My account number is 12345678.", "Number"));
});
