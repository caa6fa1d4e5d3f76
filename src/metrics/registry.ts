/**
 * A small metrics registry that writes the Prometheus text exposition format (version 0.0.4):
 * counters, gauges and histograms with fixed buckets, each with optional labels.
 *
 * Recording is meant for hot paths: a labelled series (`labels(...)`) is made once and kept by
 * its caller, and `inc`, `set` and `observe` on it change a few numbers, allocating nothing.
 * Gauges and counters may instead be read at scrape time from a function (`collect`).
 *
 * @example
 * ```ts
 * const registry = new MetricsRegistry();
 * const requests = registry.counter("app_requests_total", "Requests answered.", ["status"]);
 * const ok = requests.labels("200"); // keep it
 * ok.inc();
 * const latency = registry.histogram("app_request_seconds", "Time to answer.", [], [0.1, 1]);
 * latency.labels().observe(0.05);
 * registry.exposition(); // "# HELP app_requests_total Requests answered.\n# TYPE ..."
 * ```
 */

/** The content type of {@link MetricsRegistry.exposition}'s text. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A value as the exposition format writes it. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** A label value with `\`, `"` and line feeds escaped. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** `{a="x",b="y"}`, or nothing without labels. */
function labelText(names: readonly string[], values: readonly string[], extra = ""): string {
  const pairs = names.map((name, i) => `${name}="${escapeLabel(values[i])}"`);
  if (extra) pairs.push(extra);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

/** What a scrape-time reading returns: one value, or values per label set. */
export type Reading = number | [labels: string[], value: number][];

/** A counter series: only goes up. */
export class CounterSeries {
  /** The current count. */
  value = 0;
  /** Adds `amount` (default 1; a negative amount is ignored). */
  inc(amount = 1): void {
    if (amount > 0) this.value += amount;
  }
}

/** A gauge series: set to any value. */
export class GaugeSeries {
  /** The current value. */
  value = 0;
  /** Sets the value. */
  set(value: number): void {
    this.value = value;
  }
}

/** A histogram series: counts of observations per bucket, their sum and their count. */
export class HistogramSeries {
  /** Upper bounds, ascending; `+Inf` is implied. */
  readonly bounds: Float64Array;
  /** Observations per bucket (not cumulative); the last slot is `+Inf`'s. */
  readonly counts: Float64Array;
  /** The sum of the observations. */
  sum = 0;
  /** How many observations there were. */
  count = 0;

  constructor(bounds: Float64Array) {
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Records one observation. */
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

type Kind = "counter" | "gauge" | "histogram";

/** A metric: its name, help, label names and series (one per label values). */
export abstract class MetricFamily<S> {
  readonly series = new Map<string, { values: string[]; series: S }>();
  constructor(
    readonly kind: Kind,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!NAME.test(name)) throw new Error(`Cannot register metric ${name}: not a valid name`);
    for (const label of labelNames) {
      if (!LABEL.test(label) || label === "le") {
        throw new Error(`Cannot register metric ${name}: ${label} is not a valid label name`);
      }
    }
  }

  protected abstract make(): S;

  /** The series of these label values (made the first time; keep it on hot paths). */
  labels(...values: string[]): S {
    if (values.length !== this.labelNames.length) {
      throw new Error(
        `Cannot use metric ${this.name}: it has ${this.labelNames.length} labels, not ${values.length}`,
      );
    }
    const key = values.join("\u0000");
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values, series: this.make() };
      this.series.set(key, entry);
    }
    return entry.series;
  }

  /** The family's lines, header included. */
  abstract lines(): string[];

  protected header(): string[] {
    const help = this.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    return [`# HELP ${this.name} ${help}`, `# TYPE ${this.name} ${this.kind}`];
  }
}

/** A counter or gauge family, whose values may also be read at scrape time. */
class ValueFamily<S extends CounterSeries | GaugeSeries> extends MetricFamily<S> {
  constructor(
    kind: "counter" | "gauge",
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly makeSeries: () => S,
    private readonly collect?: () => Reading,
  ) {
    super(kind, name, help, labelNames);
  }

  protected make(): S {
    return this.makeSeries();
  }

  lines(): string[] {
    const lines = this.header();
    const read = this.collect?.();
    if (typeof read === "number") lines.push(`${this.name} ${formatValue(read)}`);
    for (const [values, value] of Array.isArray(read) ? read : []) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${formatValue(value)}`);
    }
    for (const { values, series } of this.series.values()) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${formatValue(series.value)}`);
    }
    return lines;
  }
}

/** A histogram family: every series shares its buckets. */
class HistogramFamily extends MetricFamily<HistogramSeries> {
  readonly bounds: Float64Array;

  constructor(name: string, help: string, labelNames: readonly string[], buckets: number[]) {
    super("histogram", name, help, labelNames);
    const sorted = [...new Set(buckets)].filter((b) => Number.isFinite(b)).sort((a, b) => a - b);
    if (sorted.length === 0) throw new Error(`Cannot register histogram ${name}: no buckets`);
    this.bounds = new Float64Array(sorted);
  }

  protected make(): HistogramSeries {
    return new HistogramSeries(this.bounds);
  }

  lines(): string[] {
    const lines = this.header();
    for (const { values, series } of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += series.counts[i];
        const le = i < this.bounds.length ? formatValue(this.bounds[i]) : "+Inf";
        const labels = labelText(this.labelNames, values, `le="${le}"`);
        lines.push(`${this.name}_bucket${labels} ${formatValue(cumulative)}`);
      }
      const labels = labelText(this.labelNames, values);
      lines.push(`${this.name}_sum${labels} ${formatValue(series.sum)}`);
      lines.push(`${this.name}_count${labels} ${formatValue(series.count)}`);
    }
    return lines;
  }
}

/** A counter family. */
export type Counter = MetricFamily<CounterSeries>;
/** A gauge family. */
export type Gauge = MetricFamily<GaugeSeries>;
/** A histogram family. */
export type Histogram = MetricFamily<HistogramSeries>;

/** The metrics of one process, written out in the exposition format on demand. */
export class MetricsRegistry {
  #families = new Map<string, MetricFamily<unknown>>();

  #add<F extends MetricFamily<unknown>>(family: F): F {
    if (this.#families.has(family.name)) {
      throw new Error(`Cannot register metric ${family.name}: it is registered already`);
    }
    this.#families.set(family.name, family);
    return family;
  }

  /**
   * A counter (its name should end in `_total`). `collect`, when given, is read at each scrape
   * for values kept elsewhere (a number without labels, or `[labels, value]` pairs).
   */
  counter(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    collect?: () => Reading,
  ): Counter {
    return this.#add(
      new ValueFamily("counter", name, help, labelNames, () => new CounterSeries(), collect),
    );
  }

  /** A gauge; `collect` as for {@link counter}. */
  gauge(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    collect?: () => Reading,
  ): Gauge {
    return this.#add(
      new ValueFamily("gauge", name, help, labelNames, () => new GaugeSeries(), collect),
    );
  }

  /** A histogram with the given bucket upper bounds (`+Inf` is added). */
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: number[],
  ): Histogram {
    return this.#add(new HistogramFamily(name, help, labelNames, buckets));
  }

  /** Every metric in the text exposition format 0.0.4, ending with a line feed. */
  exposition(): string {
    const lines: string[] = [];
    for (const family of this.#families.values()) lines.push(...family.lines());
    return lines.join("\n") + "\n";
  }
}
