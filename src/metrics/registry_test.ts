import assert from "node:assert/strict";
import { MetricsRegistry } from "./registry.ts";

Deno.test("counters and gauges are written with their help, type and labels", () => {
  const registry = new MetricsRegistry();
  const requests = registry.counter("app_requests_total", "Requests answered.", [
    "route",
    "status",
  ]);
  const ok = requests.labels("/a", "200");
  ok.inc();
  ok.inc(2);
  ok.inc(-5); // a counter never goes down
  requests.labels("/a", "404").inc();
  assert.equal(requests.labels("/a", "200"), ok, "a series is made once");
  registry.gauge("app_up", "Whether it is up.").labels().set(1);
  registry.gauge("app_sessions", "Open sessions.", [], () => 7);
  registry.counter("app_restarts_total", "Restarts.", ["why"], () => [[["crash"], 3]]);
  assert.equal(
    registry.exposition(),
    [
      "# HELP app_requests_total Requests answered.",
      "# TYPE app_requests_total counter",
      'app_requests_total{route="/a",status="200"} 3',
      'app_requests_total{route="/a",status="404"} 1',
      "# HELP app_up Whether it is up.",
      "# TYPE app_up gauge",
      "app_up 1",
      "# HELP app_sessions Open sessions.",
      "# TYPE app_sessions gauge",
      "app_sessions 7",
      "# HELP app_restarts_total Restarts.",
      "# TYPE app_restarts_total counter",
      'app_restarts_total{why="crash"} 3',
      "",
    ].join("\n"),
  );
});

Deno.test("histograms write cumulative buckets, +Inf, sum and count", () => {
  const registry = new MetricsRegistry();
  const latency = registry.histogram("app_seconds", "Latency.", ["route"], [0.1, 0.01, 1]);
  const series = latency.labels("/a");
  for (const value of [0.005, 0.01, 0.5, 3]) series.observe(value);
  assert.equal(
    registry.exposition(),
    [
      "# HELP app_seconds Latency.",
      "# TYPE app_seconds histogram",
      'app_seconds_bucket{route="/a",le="0.01"} 2',
      'app_seconds_bucket{route="/a",le="0.1"} 2',
      'app_seconds_bucket{route="/a",le="1"} 3',
      'app_seconds_bucket{route="/a",le="+Inf"} 4',
      'app_seconds_sum{route="/a"} 3.515',
      'app_seconds_count{route="/a"} 4',
      "",
    ].join("\n"),
  );
});

Deno.test("label values and help are escaped; bad names are refused", () => {
  const registry = new MetricsRegistry();
  registry.counter("x_total", "Help with \\ and\na line.", ["v"]).labels('a"b\\c\nd').inc();
  const text = registry.exposition();
  assert.match(text, /# HELP x_total Help with \\\\ and\\na line\./);
  assert.ok(text.includes('x_total{v="a\\"b\\\\c\\nd"} 1'));
  assert.throws(() => registry.counter("x_total", "again"), /registered already/);
  assert.throws(() => registry.counter("bad-name", "x"), /not a valid name/);
  assert.throws(() => registry.histogram("h", "x", ["le"], [1]), /not a valid label name/);
  assert.throws(() => registry.counter("y_total", "x", ["a"]).labels(), /has 1 labels/);
});
