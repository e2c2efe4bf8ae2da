/**
 * Heap limits for worker threads that ask for *more* room than V8 would give, never less.
 *
 * A limit passed to `new Worker(..., { resourceLimits })` replaces V8's default for that thread.
 * V8's defaults differ between Node majors: a worker's young generation is 48 MB on Node 20 and
 * 192 MB on Node 24 (on the same 24 GiB machine). A pool that asks for 96 MB to make its
 * scavenges rarer therefore gets twice the room on Node 20 and half of it on Node 24. `raisedLimits`
 * keeps each asked limit only where it is above the default the probe reports.
 */
import { type ResourceLimits, Worker } from "node:worker_threads";

/** The limits that only grow a heap: a smaller figure than V8's default would shrink it. */
const RAISABLE = ["maxYoungGenerationSizeMb", "maxOldGenerationSizeMb", "codeRangeSizeMb", "stackSizeMb"] as const;

/** How long the probe waits for its worker thread to report (a thread starts in tens of ms). */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * `asked`, each limit raised to at least `defaults`' value for it; a limit V8 gives more of by
 * default is left out, so the thread gets the default. Without defaults (the probe failed) the
 * asked limits stand.
 */
export function raisedLimits(asked: ResourceLimits, defaults: ResourceLimits | undefined): ResourceLimits {
  if (defaults === undefined) return asked;
  const out: Record<string, number> = {};
  for (const key of RAISABLE) {
    const want = asked[key];
    if (want === undefined) continue;
    const given = defaults[key];
    if (given === undefined || !(given > 0) || want > given) out[key] = want;
  }
  return out as ResourceLimits;
}

let probed: { readonly limits: ResourceLimits | undefined } | undefined;

/**
 * The resource limits a worker thread of this process gets when it asks for none, read once per
 * process from a short-lived thread (the caller's thread waits for it, a few tens of ms).
 * Undefined when the thread did not report in time.
 */
export function workerDefaultLimits(): ResourceLimits | undefined {
  probed ??= { limits: probeDefaultLimits() };
  return probed.limits;
}

function probeDefaultLimits(): ResourceLimits | undefined {
  // Slot 0: the ready flag; slots 1..4 (as float64 from byte 8): the limits in RAISABLE's order.
  const shared = new SharedArrayBuffer(8 + 8 * RAISABLE.length);
  const flag = new Int32Array(shared, 0, 1);
  const values = new Float64Array(shared, 8, RAISABLE.length);
  const source = `
    const { workerData, resourceLimits } = require("node:worker_threads");
    const values = new Float64Array(workerData.shared, 8, workerData.keys.length);
    workerData.keys.forEach((key, i) => { values[i] = resourceLimits[key] ?? 0; });
    const flag = new Int32Array(workerData.shared, 0, 1);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  `;
  let worker: Worker;
  try {
    worker = new Worker(source, { eval: true, workerData: { shared, keys: [...RAISABLE] } });
  } catch {
    return undefined;
  }
  worker.unref();
  const answer = Atomics.wait(flag, 0, 0, PROBE_TIMEOUT_MS);
  void worker.terminate();
  if (answer === "timed-out") return undefined;
  const limits: Record<string, number> = {};
  RAISABLE.forEach((key, i) => {
    if (values[i]! > 0) limits[key] = values[i]!;
  });
  return limits as ResourceLimits;
}
