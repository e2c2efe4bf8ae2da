/** The WebGPU run: the student's kernel against the unscheduled baseline, its times and the clock; and the WGSL. */
import { el } from "../dom.js";
import type { GpuReport } from "../gpu/run-job.js";
import type { Outcome } from "../protocol.js";

/** What the panel shows while the page runs the kernels. */
export const GPU_RUNNING = "running both kernels on WebGPU…";

const RACE_NOTE =
  "The simulator found a race. A race may or may not give wrong numbers on this GPU (it depends on the order its threads happen to run in): the simulator's verdict is the authority, not this run.";

const SOFTWARE_NOTE = "This adapter is a software renderer: the kernels ran on the CPU, so these times say little about a GPU.";

const CLOCKS = {
  "timestamp-query": "GPU timestamp queries",
  cpu: "CPU time around submit (no timestamp-query on this device; includes submission overhead)",
} as const;

function headline(state: string, text: string): HTMLElement {
  return el("p", { class: `verdict ${state === "pass" ? "good" : "bad"}`, "data-testid": "gpu-headline", "data-state": state }, text);
}

function errorText(e: number): string {
  return e === 0 ? "0" : e.toExponential(2);
}

function row(label: string, value: string, testId: string): HTMLElement {
  return el("tr", {}, el("th", {}, label), el("td", { "data-testid": testId }, value));
}

function ranBody(report: Extract<GpuReport, { kind: "ran" }>, raced: boolean): HTMLElement[] {
  const b = report.againstBaseline;
  const e = report.againstExecutor;
  const speedup = report.baseline.medianMs / report.scheduled.medianMs;
  const text = report.passed
    ? raced
      ? "PASS this time: your kernel's outputs match the unscheduled kernel's on WebGPU, but see the race below"
      : "PASS: your kernel's outputs match the unscheduled kernel's on WebGPU"
    : `FAIL: ${b.mismatches} of ${b.elements} elements differ from the unscheduled kernel's${typeof e === "string" || e.mismatches === 0 ? "" : ` (${e.mismatches} from the JS executor's)`}`;
  return [
    headline(report.passed ? "pass" : "fail", text),
    el(
      "table",
      { class: "gpu-table" },
      row("max error vs unscheduled kernel", errorText(b.maxError), "gpu-error-baseline"),
      row("max error vs JS executor", typeof e === "string" ? e : errorText(e.maxError), "gpu-error-executor"),
      row("your kernel", `${report.scheduled.medianMs.toFixed(3)} ms (median of ${report.scheduled.runsMs.length})`, "gpu-time-scheduled"),
      row("unscheduled kernel", `${report.baseline.medianMs.toFixed(3)} ms (median of ${report.baseline.runsMs.length})`, "gpu-time-baseline"),
      row("speedup", `${speedup.toFixed(2)}×`, "gpu-speedup"),
      row("clock", CLOCKS[report.scheduled.method], "gpu-clock"),
      row("adapter", report.adapter, "gpu-adapter"),
    ),
    ...(report.software ? [el("p", { class: "gpu-note", "data-testid": "gpu-software" }, SOFTWARE_NOTE)] : []),
  ];
}

/** `report` undefined: still running; `raced`: the simulator's verdict has races. */
export function renderGpu(target: HTMLElement, job: Outcome<unknown>, report: GpuReport | undefined, raced: boolean): void {
  const note = raced ? [el("p", { class: "gpu-note", "data-testid": "gpu-note" }, RACE_NOTE)] : [];
  if (!job.ok) target.replaceChildren(headline("failed", `nothing to run on WebGPU: ${job.reason}`));
  else if (report === undefined) target.replaceChildren(el("p", { class: "unavailable", "data-testid": "gpu-headline", "data-state": "running" }, GPU_RUNNING));
  else if (report.kind === "unavailable") target.replaceChildren(headline("unavailable", `WebGPU run unavailable: ${report.reason}`));
  else if (report.kind === "failed") target.replaceChildren(headline("failed", `WebGPU run failed: ${report.reason}`), ...note);
  else target.replaceChildren(...ranBody(report, raced), ...note);
}

export function renderWgsl(target: HTMLElement, wgsl: Outcome<string>): void {
  target.replaceChildren(
    wgsl.ok ? el("pre", { class: "code" }, wgsl.value) : el("p", { class: "unavailable", "data-testid": "wgsl-unavailable" }, wgsl.reason),
  );
}
