/** The explorer's page: the editor, the controls, and one panel per view, filled from a worker's run. */
import { el, panel } from "./dom.js";
import { createEditor, type LineMark } from "./editor.js";
import { DEFAULT_EXAMPLE, EXAMPLES } from "./examples/index.js";
import { type GpuAdapter, requestGpuAdapter } from "./gpu/adapter.js";
import { type GpuReport, runGpuJob } from "./gpu/run-job.js";
import type { RunResult, Step } from "./protocol.js";
import { TIME_LIMIT_MS, runInWorker } from "./run-in-worker.js";
import { renderBankHeatmap } from "./views/bank-heatmap.js";
import { renderCuda } from "./views/cuda.js";
import { renderLoopTree } from "./views/loop-tree.js";
import { renderGpu, renderWgsl } from "./views/gpu.js";
import { renderError, renderPrinted, renderStatus } from "./views/status.js";
import { renderSteps } from "./views/steps.js";
import { renderTiling } from "./views/tiling.js";
import { renderVerdict } from "./views/verdict.js";
import { WORKLOAD_LABELS, isWorkloadName } from "./workload-names.js";
import "./style.css";

const exampleSelect = el("select", { "data-testid": "example" }, ...Object.entries(EXAMPLES).map(([key, e]) => el("option", { value: key }, e.label)));
const workloadSelect = el(
  "select",
  { "data-testid": "workload" },
  ...Object.entries(WORKLOAD_LABELS).map(([key, label]) => el("option", { value: key }, label)),
);
const runButton = el("button", { type: "button", "data-testid": "run" }, "Run ▶");
const status = el("span");
const editorHost = el("div", { class: "editor", "data-testid": "editor" });
const errorBox = el("div", { class: "error", "data-testid": "error" });

const steps = panel("Steps: TVMScript after each primitive", "steps");
const stepList = el("div", { class: "step-list" });
const script = el("div", { class: "script-view", "data-testid": "script" });
steps.body.append(stepList, script);
const tree = panel("Loop nest", "loop-tree");
const tiling = panel("Tiling of the output", "tiling");
const verdict = panel("Simulator", "verdict");
const bank = panel("Shared-memory bank conflicts", "bank-conflicts");
const cuda = panel("CUDA", "cuda");
const gpu = panel("WebGPU: your kernel on this browser's GPU", "gpu");
const wgsl = panel("WGSL", "wgsl");
const printed = panel("Printed", "printed");

document.body.append(
  el("header", {}, el("h1", {}, "Tessera schedule explorer"), exampleSelect, workloadSelect, runButton, status),
  el(
    "main",
    {},
    el("div", { class: "left" }, editorHost, errorBox, printed.root),
    el("div", { class: "right" }, steps.root, verdict.root, gpu.root, tiling.root, tree.root, bank.root, cuda.root, wgsl.root),
  ),
);

let errorMarks: LineMark[] = [];
const editor = createEditor(editorHost, () => {
  errorMarks = [];
  editor.mark([]);
});

function loadExample(key: string): void {
  const example = EXAMPLES[key];
  if (example === undefined) return;
  editor.setText(example.code);
  workloadSelect.value = example.workload;
}

/** The line of the step that first shows each racing buffer: the primitive that created it. */
function raceOrigins(result: RunResult): Map<string, number> {
  const origins = new Map<string, number>();
  if (!result.verdict.ok) return origins;
  for (const buffer of result.verdict.value.raceBuffers) {
    const creator: Step | undefined = result.steps.find((s) => s.line !== undefined && s.script.includes(buffer));
    if (creator?.line !== undefined) origins.set(buffer, creator.line);
  }
  return origins;
}

function show(result: RunResult): void {
  const origins = raceOrigins(result);
  errorMarks = [
    ...(result.error?.line === undefined ? [] : [{ line: result.error.line, kind: "error" as const }]),
    ...[...origins.values()].map((line) => ({ line, kind: "race" as const })),
  ];
  renderError(errorBox, result);
  renderPrinted(printed.body, result);
  renderSteps(stepList, script, result.steps, (line) => editor.mark([...errorMarks, ...(line === undefined ? [] : [{ line, kind: "step" as const }])]));
  renderLoopTree(tree.body, result.loopTree);
  renderTiling(tiling.body, result.tiling);
  renderVerdict(verdict.body, result.verdict, origins);
  renderBankHeatmap(bank.body, result.bankConflicts);
  renderCuda(cuda.body, result.cuda);
  renderWgsl(wgsl.body, result.wgsl);
  if (result.error !== undefined) editor.mark(errorMarks);
}

async function run(): Promise<void> {
  const workload = workloadSelect.value;
  if (!isWorkloadName(workload)) return;
  runButton.disabled = true;
  renderStatus(status, "running…", "busy");
  const started = performance.now();
  const adapter = await requestGpuAdapter();
  const gpuLimits = typeof adapter === "string" ? undefined : adapter.limits;
  const outcome = await runInWorker({ code: editor.text(), workload, gpuLimits }, timeLimitMs());
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (outcome.kind === "timeout") renderStatus(status, `stopped: the run took longer than ${outcome.limitMs / 1000} s`, "failed");
  else if (outcome.kind === "crash") renderStatus(status, `the explorer failed: ${outcome.message}`, "failed");
  else {
    show(outcome.result);
    const ranOnGpu = await runOnGpu(outcome.result, adapter);
    const total = ((performance.now() - started) / 1000).toFixed(1);
    const done = ranOnGpu ? `done in ${total} s (${seconds} s without the WebGPU run)` : `done in ${seconds} s`;
    renderStatus(status, outcome.result.error === undefined ? done : `your code threw (${seconds} s)`, "done");
  }
  // Enabled only now: a second run must not start while this one still uses the GPU.
  runButton.disabled = false;
}

/** Runs the worker's kernels on WebGPU here on the page, filling the WebGPU panel; whether anything ran. */
async function runOnGpu(result: RunResult, adapter: GpuAdapter | string): Promise<boolean> {
  const raced = result.verdict.ok && result.verdict.value.raceCount > 0;
  renderGpu(gpu.body, result.gpu, undefined, raced);
  if (!result.gpu.ok) return false;
  renderStatus(status, "running on WebGPU…", "busy");
  let report: GpuReport;
  try {
    report = await runGpuJob(result.gpu.value, adapter);
  } catch (err) {
    report = { kind: "failed", reason: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
  renderGpu(gpu.body, result.gpu, report, raced);
  return report.kind === "ran";
}

/** `?limit=MS` shortens the time limit (the browser tests' runaway schedule). */
function timeLimitMs(): number {
  const limit = Number(new URLSearchParams(location.search).get("limit"));
  return Number.isInteger(limit) && limit > 0 ? limit : TIME_LIMIT_MS;
}

exampleSelect.addEventListener("change", () => loadExample(exampleSelect.value));
runButton.addEventListener("click", () => void run());
exampleSelect.value = DEFAULT_EXAMPLE;
loadExample(DEFAULT_EXAMPLE);
renderStatus(status, "press Run", "done");
