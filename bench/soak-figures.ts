/**
 * The soak's figures of throughput under overload, as pure functions (unit-tested in
 * test/unit/bench/soak-figures.spec.ts): goodput, `Retry-After`, the concurrency sweep's rows, table
 * and ratio bound, and the tally of the burst of slow searches.
 */

/** How a client of the sweep treats a 503 `MR_OVERLOADED`: it waits `Retry-After` seconds, or sends its next request at once. */
export type ClientMode = 'honours Retry-After' | 'ignores Retry-After';

/** One answer (or transport failure) a client recorded: its status (0: no answer), the error code of its body, and its latency. */
export interface Answer {
  status: number;
  /** The body's `code` (`MR_OVERLOADED`, `MR_QUERY_TIMEOUT`...), when it has one. */
  code?: string;
  ms: number;
}

/** A 503 of the admission limit: the request was shed at once, told to come back. */
export function isShed(answer: Answer): boolean {
  return answer.status === 503 && answer.code === 'MR_OVERLOADED';
}

export function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A 5xx that is not the admission limit's 503 `MR_OVERLOADED` (a 503 of another code counts: the database is up in these phases). */
export function isOtherFivexx(answer: Answer): boolean {
  return answer.status >= 500 && answer.status < 600 && !isShed(answer);
}

/** Successful (2xx) requests per second, from autocannon's status codes (code → count) over `seconds`. */
export function goodput(statusCodes: Record<string, number>, seconds: number): number {
  const ok = Object.entries(statusCodes)
    .filter(([code]) => is2xx(Number(code)))
    .reduce((sum, [, count]) => sum + count, 0);
  return seconds > 0 ? ok / seconds : 0;
}

/**
 * The seconds a `Retry-After` header asks the client to wait (RFC 9110 §10.2.3): a whole number of
 * seconds, or an HTTP date (the seconds from `now` to it, 0 when it is past). `undefined` when
 * there is no header or it is neither.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  // A date has letters (a day or a month name): `Date.parse` would also take "1.5" or "-3", which are not valid here.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The value at `share` (0.99: p99) of `values`, by nearest rank as the soak's other figures; 0 without values. */
export function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0);
}

/** One step of the sweep: its connections, the clients' mode, and what they got within `seconds`. */
export interface SweepStep {
  connections: number;
  mode: ClientMode;
  seconds: number;
  answers: Answer[];
}

/** One row of the sweep's table. */
export interface SweepRow {
  connections: number;
  mode: ClientMode;
  answers: number;
  /** 2xx answers per second. */
  goodput: number;
  /** p99 latency of the 2xx answers, in ms. */
  admittedP99: number;
  /** Shed 503 `MR_OVERLOADED` answers, as a share of all answers (0–1). */
  shedShare: number;
  /** 5xx answers other than the shed 503s. */
  otherFivexx: number;
  /** Everything else that is not 2xx: 4xx, socket errors and time-outs. */
  other: number;
}

export function sweepRow(step: SweepStep): SweepRow {
  const ok = step.answers.filter((answer) => is2xx(answer.status));
  const shed = step.answers.filter(isShed).length;
  const otherFivexx = step.answers.filter(isOtherFivexx).length;
  return {
    connections: step.connections,
    mode: step.mode,
    answers: step.answers.length,
    goodput: step.seconds > 0 ? ok.length / step.seconds : 0,
    admittedP99: percentile(
      ok.map((answer) => answer.ms),
      0.99,
    ),
    shedShare: step.answers.length ? shed / step.answers.length : 0,
    otherFivexx,
    other: step.answers.length - ok.length - shed - otherFivexx,
  };
}

/** The sweep's table (Markdown), one row per step in the order run. */
export function sweepTable(rows: SweepRow[]): string[] {
  return [
    '| connections | mode | goodput (2xx/s) | admitted p99 | 503 share | 5xx (not 503) | other (4xx, errors) | answers |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.connections} | ${row.mode} | ${row.goodput.toFixed(1)} | ${row.admittedP99} ms | ${(100 * row.shedShare).toFixed(1)}% | ` +
        `${row.otherFivexx} | ${row.other} | ${row.answers} |`,
    ),
  ];
}

/** The goodput of the sweep's largest step against its best step, in one mode, and whether the ratio holds the bound. */
export interface GoodputRatio {
  mode: ClientMode;
  largest: SweepRow;
  best: SweepRow;
  /** largest.goodput / best.goodput (0 when no step had any goodput). */
  ratio: number;
  bound: number;
  ok: boolean;
}

/** `undefined` when the sweep ran no step in `mode`. */
export function goodputRatio(rows: SweepRow[], mode: ClientMode, bound: number): GoodputRatio | undefined {
  const ofMode = rows.filter((row) => row.mode === mode);
  if (!ofMode.length) return undefined;
  const largest = ofMode.reduce((a, b) => (b.connections > a.connections ? b : a));
  const best = ofMode.reduce((a, b) => (b.goodput > a.goodput ? b : a));
  const ratio = best.goodput > 0 ? largest.goodput / best.goodput : 0;
  return { mode, largest, best, ratio, bound, ok: best.goodput > 0 && ratio >= bound };
}

/** What the burst of slow searches got. */
export interface BurstTally {
  sent: number;
  ok: number;
  shed: number;
  queryTimeout: number;
  otherFivexx: number;
  /** Anything else: other 4xx, socket errors, the client's time-out. */
  other: number;
  /** Latency of the 2xx answers, in ms. */
  okP99: number;
  okMax: number;
  /** Latency of every admitted answer (all but the shed 503s: the 2xx, the 422s, the rest), in ms. */
  admittedP99: number;
  admittedMax: number;
  /** The distinct answers that are not 2xx nor shed: `status code` → count. */
  others: Record<string, number>;
}

export function burstTally(answers: Answer[]): BurstTally {
  const ok = answers.filter((answer) => is2xx(answer.status));
  const admitted = answers.filter((answer) => !isShed(answer));
  const queryTimeout = answers.filter((answer) => answer.status === 422 && answer.code === 'MR_QUERY_TIMEOUT').length;
  const otherFivexx = answers.filter(isOtherFivexx).length;
  const shed = answers.length - admitted.length;
  const others: Record<string, number> = {};
  for (const answer of admitted.filter((a) => !is2xx(a.status))) {
    const key = `${answer.status || 'no answer'}${answer.code ? ` ${answer.code}` : ''}`;
    others[key] = (others[key] ?? 0) + 1;
  }
  const okMs = ok.map((answer) => answer.ms);
  const admittedMs = admitted.map((answer) => answer.ms);
  return {
    sent: answers.length,
    ok: ok.length,
    shed,
    queryTimeout,
    otherFivexx,
    other: admitted.length - ok.length - queryTimeout - otherFivexx,
    okP99: percentile(okMs, 0.99),
    okMax: Math.round(Math.max(0, ...okMs)),
    admittedP99: percentile(admittedMs, 0.99),
    admittedMax: Math.round(Math.max(0, ...admittedMs)),
    others,
  };
}
