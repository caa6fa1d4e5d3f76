/**
 * The relayer's metrics (`GET /metrics`): requests by route pattern and status, latency per
 * route, recall's stages, remember jobs and the worker, the MCP sidecar. No label carries an
 * owner, a key, a namespace, a memory id or a raw path: routes are their patterns
 * (`/api/memories/:id`), methods a fixed set, statuses numbers.
 *
 * Recording a request finds its route's series in a map (made the first time that route
 * answers with that status) and bumps a few numbers; nothing is allocated per request.
 */
import type { Route } from "../http/router.ts";
import type { SidecarLink } from "../sidecar/link.ts";
import type { WorkerObserver, WorkerStats } from "../remember/worker.ts";
import type { RecallStage } from "../services/memories.ts";
import { VERSION } from "../version.ts";
import {
  type Counter,
  type CounterSeries,
  type Histogram,
  type HistogramSeries,
  MetricsRegistry,
} from "./registry.ts";

/** The jobs as `/health` reports them (see `RelayerMetrics.jobCounts`). */
export interface JobCounts {
  /** Pending or running, as the reconciler last counted them (at start, then every minute). */
  unfinished: number;
  /** Failed for good after their attempts, since the relayer started. */
  deadLettered: number;
}

/** How a remember job ended. */
type JobOutcome = "done" | "duplicate" | "failed";

const RECALL_STAGES: readonly RecallStage[] = ["embed", "search", "lexical", "read", "rerank"];
const JOB_OUTCOMES: readonly JobOutcome[] = ["done", "duplicate", "failed"];
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);

/** The bounds 1, 2.5 and 5 times a power of ten from `from` to `to`, in seconds. */
function steps(from: number, to: number): number[] {
  const bounds = [];
  for (let e = -5; e <= 2; e++) bounds.push(...[1, 2.5, 5].map((m) => Number(`${m}e${e}`)));
  return bounds.filter((bound) => bound >= from && bound <= to);
}

/** Seconds, from half a millisecond to half a minute: a request's time to its headers. */
const REQUEST_BUCKETS = [...steps(0.0005, 10), 30];
/** Seconds, from 50 µs: a recall stage. */
const STAGE_BUCKETS = [...steps(0.00005, 1), 5];
/** Seconds, from 10 ms to 15 minutes: a job, or a worker's batch. */
const JOB_BUCKETS = [...steps(0.01, 10), 30, 60, 300, 900];

/** A family's series of each of `values` (its one label), by value. */
function seriesByLabel<K extends string, S>(
  family: { labels(value: string): S },
  values: readonly K[],
): Record<K, S> {
  return Object.fromEntries(values.map((value) => [value, family.labels(value)])) as Record<K, S>;
}

/** One route's series: its latency, and its count per status. */
interface RouteSeries {
  method: string;
  pattern: string;
  latency: HistogramSeries;
  statuses: Map<number, CounterSeries>;
}

/** What the metrics read at scrape time from the relayer's parts. */
export interface MetricsSources {
  /** The MCP sidecar: up or down, its restarts, its open sessions. */
  sidecar?: SidecarLink;
  /** The job worker's jobs waiting and running. */
  worker?: { stats?(): WorkerStats };
  /** The lexical indexes in memory: how many namespaces, about how many bytes. */
  lexicon?: { stats(): { namespaces: number; bytes: number } };
}

/** The relayer's metrics and its registry (see the module comment). */
export class RelayerMetrics {
  /** Every metric, for `GET /metrics`. */
  readonly registry: MetricsRegistry = new MetricsRegistry();
  #requests: Counter;
  #latency: Histogram;
  #routes = new Map<unknown, RouteSeries>();
  #stages: Record<RecallStage, HistogramSeries>;
  #jobs: Record<JobOutcome, CounterSeries>;
  #jobDurations: Record<JobOutcome, HistogramSeries>;
  #retries: CounterSeries;
  #deadLettered: CounterSeries;
  #batches: HistogramSeries;
  #unfinished = 0;
  #sources: MetricsSources = {};

  constructor() {
    const r = this.registry;
    const sources = () => this.#sources;
    r.gauge("svc_build_info", "The relayer's version.", ["version"], () => [[[VERSION], 1]]);
    const started = Date.now() / 1000;
    r.gauge(
      "process_start_time_seconds",
      "When the relayer started (Unix seconds).",
      [],
      () => started,
    );
    this.#requests = r.counter(
      "svc_http_requests_total",
      "HTTP requests answered, by method, route pattern and status.",
      ["method", "route", "status"],
    );
    this.#latency = r.histogram(
      "svc_http_request_duration_seconds",
      "Time from a request's arrival to its response's headers, by method and route pattern.",
      ["method", "route"],
      REQUEST_BUCKETS,
    );
    const stages = r.histogram(
      "svc_recall_stage_seconds",
      "Time recall spends per stage: embed the query, search the vectors, lexical (terms and " +
        "BM25), read (blob reads and decryption), rerank.",
      ["stage"],
      STAGE_BUCKETS,
    );
    this.#stages = seriesByLabel(stages, RECALL_STAGES);
    const jobs = r.counter(
      "svc_jobs_total",
      "Remember jobs ended, by outcome (done, duplicate, failed).",
      ["outcome"],
    );
    this.#jobs = seriesByLabel(jobs, JOB_OUTCOMES);
    const durations = r.histogram(
      "svc_job_duration_seconds",
      "Time from a remember job's acceptance to its end, by outcome.",
      ["outcome"],
      JOB_BUCKETS,
    );
    this.#jobDurations = seriesByLabel(durations, JOB_OUTCOMES);
    this.#retries = r.counter(
      "svc_job_retries_total",
      "Remember job attempts that failed and will be tried again.",
    ).labels();
    this.#deadLettered = r.counter(
      "svc_jobs_dead_lettered_total",
      "Remember jobs failed for good for a reason other than their input's (their attempts ran " +
        'out): each has its reason in its status. Also counted in svc_jobs_total{outcome="failed"}.',
    ).labels();
    this.#batches = r.histogram(
      "svc_worker_batch_duration_seconds",
      "Time the worker takes to run a batch of remember jobs through the pipeline.",
      [],
      JOB_BUCKETS,
    ).labels();
    r.gauge(
      "svc_worker_jobs",
      "Remember jobs the worker holds: delivered and waiting for a batch, or running.",
      ["state"],
      () => {
        const stats = sources().worker?.stats?.() ?? { waiting: 0, running: 0 };
        return [[["waiting"], stats.waiting], [["running"], stats.running]];
      },
    );
    r.gauge(
      "svc_jobs_unfinished",
      "Remember jobs pending or running in the queue, as the reconciler last counted them " +
        "(at start, then every minute).",
      [],
      () => this.#unfinished,
    );
    r.gauge(
      "svc_lexicon_bytes",
      "About the bytes the namespaces' lexical indexes hold in memory (SVC_LEXICON_MEMORY_MB " +
        "bounds them).",
      [],
      () => sources().lexicon?.stats().bytes ?? 0,
    );
    r.gauge(
      "svc_lexicon_namespaces",
      "Namespaces whose lexical index is in memory.",
      [],
      () => sources().lexicon?.stats().namespaces ?? 0,
    );
    r.gauge(
      "svc_sidecar_up",
      "Whether the MCP sidecar answers its health probe.",
      [],
      () => sources().sidecar?.status() === "up" ? 1 : 0,
    );
    r.counter(
      "svc_sidecar_restarts_total",
      "Times the MCP sidecar was restarted after it exited or stopped answering.",
      [],
      () => sources().sidecar?.restarts?.() ?? 0,
    );
    r.gauge(
      "svc_mcp_sessions",
      "Open MCP sessions, as the sidecar last reported them.",
      [],
      () => sources().sidecar?.sessions() ?? 0,
    );
  }

  /** Where the scrape-time readings come from (the sidecar, the worker). */
  watch(sources: MetricsSources): void {
    this.#sources = sources;
  }

  /** Records an answered request (the kernel's `observe`). */
  readonly request = (
    request: Request,
    route: Pick<Route, "method" | "pattern"> | undefined,
    status: number,
    seconds: number,
  ): void => {
    // By the request's method (a GET route answers HEAD too), methods outside the usual ones as
    // "other"; unmatched requests as one route.
    const method = METHODS.has(request.method) ? request.method : "other";
    const pattern = route?.pattern.pathname ?? "unmatched";
    const key = route?.method === request.method ? route : `${method} ${pattern}`;
    let series = this.#routes.get(key);
    if (!series) {
      const latency = this.#latency.labels(method, pattern);
      series = { method, pattern, latency, statuses: new Map() };
      this.#routes.set(key, series);
    }
    let counter = series.statuses.get(status);
    if (!counter) {
      counter = this.#requests.labels(series.method, series.pattern, String(status));
      series.statuses.set(status, counter);
    }
    counter.inc();
    series.latency.observe(seconds);
  };

  /** Records how long a recall stage took. */
  readonly recallStage = (stage: RecallStage, seconds: number): void => {
    this.#stages[stage].observe(seconds);
  };

  /** What the worker reports. */
  readonly worker: WorkerObserver = {
    jobEnded: (outcome, acceptedAt) => {
      this.#jobs[outcome].inc();
      this.#jobDurations[outcome].observe(Math.max(0, Date.now() - acceptedAt) / 1000);
    },
    jobDeadLettered: () => this.#deadLettered.inc(),
    jobRetried: () => this.#retries.inc(),
    batchRan: (seconds) => this.#batches.observe(seconds),
  };

  /** Records the reconciler's count of unfinished jobs. */
  readonly unfinishedJobs = (count: number): void => {
    this.#unfinished = count;
  };

  /**
   * What `/health` tells of the jobs: unfinished as the reconciler last counted them, and
   * dead-lettered since the relayer started.
   */
  jobCounts(): JobCounts {
    return { unfinished: this.#unfinished, deadLettered: this.#deadLettered.value };
  }
}
