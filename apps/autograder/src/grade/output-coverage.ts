/**
 * Does the full-size kernel write every element of D, each from one thread? The sampled
 * numerics check compares only what the sampled thread blocks wrote, so a grid that is too small,
 * a condition that skips a strip, or a tile that writes only part of its block would pass it.
 * This check runs the simulator's store coverage (only the index arithmetic that places D's
 * stores, for every thread of the whole grid; packages/simulator/src/store-coverage.ts) and
 * explains a gap or an overlap in the student's terms: which elements, how many, and the launch.
 */
import type { LoweredModule } from "@tessera/codegen";
import { type Dim3, type StoreCoverage, formatDim3, moduleStoreCoverage } from "@tessera/simulator";

export type OutputCoverage =
  /** `problem`: what is wrong, for the student; `summary`: what was checked, when nothing is. */
  { readonly checked: true; readonly problem?: string; readonly summary: string; readonly seconds: number } | { readonly checked: false; readonly why: string };

/** Checks the module's parameter named `output` over the whole launch. */
export function checkOutputCoverage(module: LoweredModule, output = "D"): OutputCoverage {
  const index = module.source.params.findIndex((p) => module.source.bufferMap.get(p)?.name === output);
  if (index < 0) return { checked: false, why: `the scheduled function has no parameter ${output}` };
  const shape = module.source.bufferMap.get(module.source.params[index]!)!.shape.map((s) => (s.kind === "IntImm" ? s.value : undefined));
  let result: ReturnType<typeof moduleStoreCoverage>;
  try {
    result = moduleStoreCoverage(module, index);
  } catch (err) {
    // An out-of-bounds store, say: the thread and the access are in the message.
    const message = err instanceof Error ? err.message : String(err);
    return { checked: true, problem: `placing the kernel's stores of ${output} failed: ${message}`, summary: "", seconds: 0 };
  }
  if (!result.supported) return { checked: false, why: result.why };
  const c = result.coverage;
  const seconds = c.timeMs / 1000;
  const dims = shape.every((s): s is number => s !== undefined) ? shape : [c.elements];
  const problems: string[] = [];
  if (c.writtenCount < c.elements) problems.push(unwrittenProblem(c, output, dims));
  if (c.overlapCount > 0 && c.firstOverlap !== undefined) {
    const o = c.firstOverlap;
    problems.push(
      `${c.overlapCount} element${c.overlapCount === 1 ? " is" : "s are"} written by more than one thread, first ${element(output, o.element, dims)} ` +
        `by thread ${formatDim3(o.first.thread)} of block ${formatDim3(o.first.block)} and by thread ${formatDim3(o.second.thread)} of block ${formatDim3(o.second.block)} ` +
        `(a write-write race: which value stays is up to the GPU)`,
    );
  }
  const summary = `every one of the ${c.elements} elements of ${output} is written, each by one thread (all ${blocks(c.grid)} thread blocks checked)`;
  return problems.length === 0 ? { checked: true, summary, seconds } : { checked: true, problem: problems.join("; "), summary, seconds };
}

function unwrittenProblem(c: StoreCoverage, output: string, dims: readonly number[]): string {
  const missing = c.elements - c.writtenCount;
  const launch = `the kernel launches ${blocks(c.grid)} thread blocks (a ${c.grid.join("×")} grid) of ${c.block.join("×")} threads`;
  const first = c.written.indexOf(0);
  const head = `your kernel never writes ${missing} of the ${c.elements} elements of ${output}`;
  if (dims.length !== 2) return `${head}, first ${element(output, first, dims)}; ${launch}: is the grid too small, or does a condition skip them?`;
  const [rows, cols] = dims as [number, number];
  let r0 = rows,
    r1 = -1,
    c0 = cols,
    c1 = -1;
  let completeRows = 0;
  for (let r = 0; r < rows; r++) {
    let rowComplete = true;
    for (let col = 0; col < cols; col++) {
      if (c.written[r * cols + col] === 1) continue;
      rowComplete = false;
      r0 = Math.min(r0, r);
      r1 = Math.max(r1, r);
      c0 = Math.min(c0, col);
      c1 = Math.max(c1, col);
    }
    if (rowComplete) completeRows++;
  }
  let completeCols = 0;
  for (let col = 0; col < cols; col++) {
    let complete = true;
    for (let r = 0; r < rows && complete; r++) complete = c.written[r * cols + col] === 1;
    if (complete) completeCols++;
  }
  const span = (lo: number, hi: number, extent: number): string => (lo === 0 && hi === extent - 1 ? "*" : lo === hi ? `${lo}` : `${lo}..${hi}`);
  const region = `${output}[${span(r0, r1, rows)}, ${span(c0, c1, cols)}]`;
  const whole = (r1 - r0 + 1) * (c1 - c0 + 1) === missing;
  const where = whole ? `: ${region}` : ` inside ${region} (not all of it), first ${element(output, first, dims)}`;
  const covered = `${completeRows} of ${rows} rows and ${completeCols} of ${cols} columns are written completely`;
  return `${head}${where}; ${covered}; ${launch}: is the grid too small, or does a condition skip them?`;
}

/** `D[r, c]` for a flat index (row-major), or `D[i]` for other shapes. */
function element(output: string, flat: number, dims: readonly number[]): string {
  const at: number[] = [];
  let rest = flat;
  for (let k = dims.length - 1; k >= 0; k--) {
    at.unshift(rest % dims[k]!);
    rest = Math.floor(rest / dims[k]!);
  }
  return `${output}[${at.join(", ")}]`;
}

function blocks(grid: Dim3): number {
  return grid[0] * grid[1] * grid[2];
}
