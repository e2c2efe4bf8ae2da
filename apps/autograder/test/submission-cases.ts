/**
 * The broken and hostile submissions of grade-submissions.test.ts, derived at test time from the
 * handed-out files instead of kept as copies: each case says which file (the instructor solution's
 * or the starter's) each of its two files starts from, and the edits that are "what the student
 * did wrong". The text an edit replaces must occur exactly once in the file, so a change of the
 * solution cannot silently turn a case into an unchanged copy: the case fails, naming itself.
 *
 * `writeSubmission` writes a case into a fresh folder under the OS temp dir, graded like any
 * submission folder; the caller removes it.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";

/** The starter files; the instructor solution is in its `solution/` folder. */
const STARTER_DIR = assignmentBinding(DEFAULT_ASSIGNMENT).root;
const SOLUTION_DIR = join(STARTER_DIR, "solution");

type Base = "solution" | "starter";
type SubmissionFile = "gemm_relu_add.ts" | "trace_submission.ts";

/** `find` (exact text, which must occur exactly once) becomes `by`; or `append` goes at the end. */
export type Edit = { readonly find: string; readonly by: string } | { readonly append: string };

export interface FileRecipe {
  readonly base: Base;
  readonly edits: readonly Edit[];
}

/** A case's two files; a function gets the submission folder (for paths relative to it). */
export interface SubmissionCase {
  readonly gemm: FileRecipe | ((dir: string) => FileRecipe);
  readonly trace: FileRecipe | ((dir: string) => FileRecipe);
}

export const solution = (...edits: Edit[]): FileRecipe => ({ base: "solution", edits });
const starter = (...edits: Edit[]): FileRecipe => ({ base: "starter", edits });
export const replace = (find: string, by: string): Edit => ({ find, by });
export const remove = (find: string): Edit => ({ find, by: "" });
export const insertBefore = (anchor: string, text: string): Edit => ({ find: anchor, by: text + anchor });
export const insertAfter = (anchor: string, text: string): Edit => ({ find: anchor, by: anchor + text });
export const append = (text: string): Edit => ({ append: text });
/** Whole lines of code, each ended by a newline. */
export const lines = (...code: string[]): string => code.map((line) => `${line}\n`).join("");

// Lines of the solution's gemm_relu_add.ts that several cases edit next to.
const SCHEDULE_IMPORT = lines('import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";');
const TASK1_START = lines("export function sharedMemoryTiling(sch: Schedule, tileX: number, tileY: number, tileK: number): [BlockRV, BlockRV] {");
const TASK2_START = lines("export function registerTiling(sch: Schedule, threadTileX: number, threadTileY: number, threadTileK: number): void {");
const WRITE_BACK = lines('  const writeBack = sch.cacheWrite(gemm, 0, "local");');
const INLINE_RELU = lines('  sch.reverseComputeInline(sch.getBlock("relu"));');

/**
 * How a file of the submission folder `dir` imports the instructor solution's gemm_relu_add.ts: a
 * relative path from `dir` that reaches the real file (outside the submission).
 */
export function solutionImport(dir: string): string {
  return relative(dir, join(SOLUTION_DIR, "gemm_relu_add.ts")).replace(/\.ts$/, ".js");
}

export const CASES = {
  // Forgot the closing parenthesis of a split in registerTiling.
  "syntax-error": {
    gemm: solution(replace("sch.split(innerX, [null, threadTileX]) as", "sch.split(innerX, [null, threadTileX] as")),
    trace: solution(),
  },
  // Misspelled registerTiling as registerTilling, so the file does not export registerTiling.
  "missing-export": {
    gemm: solution(
      replace("export function registerTiling(", "export function registerTilling("),
      replace("  registerTiling(sch, t.", "  registerTilling(sch, t."),
    ),
    trace: solution(),
  },
  // cooperativeFetching takes its loops from a helper reading a table it never filled: a TypeError.
  "throwing-task": {
    gemm: solution(
      replace(
        lines("  for (const stage of [aShared, bShared]) {", "    const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];"),
        lines(
          "  const loopsByStage = new Map<string, LoopRV[]>();",
          "  for (const stage of [aShared, bShared]) {",
          "    const [row, col] = rowAndColumn(loopsByStage, sch.get(stage).name);",
        ),
      ),
      append(
        lines(
          "",
          "/** The row and column loops of a copy stage, from a table of loops by stage name. */",
          "function rowAndColumn(loopsByStage: Map<string, LoopRV[]>, name: string): [LoopRV, LoopRV] {",
          "  const loops = loopsByStage.get(name) as LoopRV[];",
          "  return loops.slice(-2) as [LoopRV, LoopRV];",
          "}",
        ),
      ),
    ),
    trace: solution(),
  },
  // writeCache waits for a loop bound to threadIdx.z, which never comes: an infinite loop.
  "infinite-loop": {
    gemm: solution(
      insertBefore(
        WRITE_BACK,
        lines(
          "  // Counts until a loop is bound to threadIdx.z, which never happens.",
          "  const tags = sch.getLoops(gemm).map((loop) => sch.get(loop).threadTag);",
          "  let waited = 0;",
          '  while (!tags.includes("threadIdx.z")) waited++;',
        ),
      ),
    ),
    trace: solution(),
  },
  // registerTiling keeps a "debugging snapshot" per iteration, forever: it allocates until the heap is full.
  "memory-bomb": {
    gemm: solution(
      insertBefore(
        "  const [innerX, innerY, kInner] = sch.getLoops(gemm)",
        lines(
          '  // Keeps a snapshot of the schedule\'s IR "for debugging" on every iteration, forever.',
          "  const snapshots: string[][] = [];",
          "  for (;;) snapshots.push(new Array<string>(1_000_000).fill(sch.get(gemm).name));",
        ),
      ),
    ),
    trace: solution(),
  },
  // epilogueFusion looks its blocks up 3000 times "to make sure": more instructions than the grader replays.
  "huge-trace": {
    gemm: solution(
      insertBefore(
        INLINE_RELU,
        lines(
          '  // "Makes sure" the blocks exist before inlining them.',
          "  for (let attempt = 0; attempt < 3000; attempt++) {",
          '    sch.getBlock("relu");',
          '    sch.getBlock("add");',
          "  }",
        ),
      ),
    ),
    trace: solution(),
  },
  // Task 1 splits i by 32 instead of tileX (64).
  "wrong-tile-split": {
    gemm: solution(replace("sch.split(i, [null, tileX])", "sch.split(i, [null, 32])")),
    trace: solution(),
  },
  // Task 1 splits i with both factors written for the graded 2048³ workload: [2048 / tileX, tileX]. Valid (the same kernel as [null, tileX] at 2048³).
  "literal-tile-split": {
    gemm: solution(replace("sch.split(i, [null, tileX])", "sch.split(i, [2048 / tileX, tileX])")),
    trace: solution(),
  },
  // Task 1 splits i by 32 instead of tileX (a failed check); tasks 2–5 are still the starter's TODOs.
  "wrong-split-then-todo": {
    gemm: solution(
      replace("sch.split(i, [null, tileX])", "sch.split(i, [null, 32])"),
      insertAfter(TASK2_START, lines('  throw new Error("TODO(task 2): registerTiling is not implemented yet");')),
      insertBefore(
        lines("  for (const stage of [aShared, bShared]) {"),
        lines('  throw new Error("TODO(task 3): cooperativeFetching is not implemented yet");'),
      ),
      insertBefore(WRITE_BACK, lines('  throw new Error("TODO(task 4): writeCache is not implemented yet");')),
      insertBefore(INLINE_RELU, lines('  throw new Error("TODO(task 5): epilogueFusion is not implemented yet");')),
    ),
    trace: solution(),
  },
  // Task 1 forgets to move the shared-memory copies under the k-chunk loop (no computeAt).
  "missing-compute-at": {
    gemm: solution(remove(lines("  sch.computeAt(aShared, kOuter);", "  sch.computeAt(bShared, kOuter);"))),
    trace: solution(),
  },
  // cooperativeFetching returns at once: the shared copies are not fetched by the threads together.
  "no-cooperative-fetch": {
    gemm: solution(
      insertBefore(lines("  for (const stage of [aShared, bShared]) {"), lines("  // Not done: the copies stay as task 1 left them.", "  return;")),
    ),
    trace: solution(),
  },
  // Task 1 passes its checks with an extra unit k loop (unlike the solution's shape); task 2 still throws the starter's TODO.
  "unit-k-loop-then-todo": {
    gemm: solution(
      replace("sch.split(k, [null, tileK])", "sch.split(k, [null, tileK, 1])"),
      insertAfter(TASK2_START, lines('  throw new Error("TODO(task 2): registerTiling is not implemented yet");')),
    ),
    trace: solution(),
  },
  // Imports the instructor solution (a relative path out of the submission) and returns its task 1.
  "imports-solution": {
    gemm: (dir) =>
      solution(
        insertAfter(SCHEDULE_IMPORT, lines(`import * as reference from "${solutionImport(dir)}";`)),
        insertAfter(TASK1_START, lines("  return reference.sharedMemoryTiling(sch, tileX, tileY, tileK);")),
      ),
    trace: solution(),
  },
  // writeCache and epilogueFusion try to write results.json themselves (fs through a computed require, process.binding).
  "writes-results": {
    gemm: solution(
      insertAfter(
        SCHEDULE_IMPORT,
        lines(
          "",
          "declare const require: (id: string) => { writeFileSync(path: string, data: string): void };",
          "declare const process: { binding(name: string): { writeString(fd: number, data: string): void; open(path: string, flags: number, mode: number): number } };",
          "",
          'const FAKE_RESULTS = JSON.stringify({ score: 100, output: "all tests passed" });',
        ),
      ),
      insertBefore(WRITE_BACK, lines('  const fs = require(["node", "fs"].join(":"));', '  fs.writeFileSync("results.json", FAKE_RESULTS);')),
      insertBefore(INLINE_RELU, lines('  const fs = process.binding("fs");', '  fs.writeString(fs.open("results.json", 0o101, 0o644), FAKE_RESULTS);')),
    ),
    trace: solution(),
  },
  // The untouched starter, printing fake grader output (JSON, "Score: 100/100") when loaded, in task 1 and in applyTrace.
  "fake-output": {
    gemm: starter(
      insertBefore(
        lines('  throw new Error("TODO(task 1): sharedMemoryTiling is not implemented yet");'),
        lines(
          '  console.log(JSON.stringify({ type: "result", body: { id: "shared-memory-tiling", ok: true, trace: [], millis: 0 } }));',
          '  console.error("Score: 100/100");',
        ),
      ),
      append(
        lines(
          "",
          "// Output that pretends to be the grader's, printed as soon as the file is loaded.",
          'console.log(JSON.stringify({ score: 100, output: "Score: 100/100", tests: [{ name: "Task 1. Shared memory tiling", score: 20, max_score: 20 }] }));',
          'console.log("Score: 100/100");',
        ),
      ),
    ),
    trace: starter(
      insertAfter(
        lines("  void sch;"),
        lines('  console.log(JSON.stringify({ score: 100, tests: [{ name: "Part 2. Auto tuning", score: 20, max_score: 20 }] }));'),
      ),
    ),
  },
  // sharedMemoryTiling calls process.exit(0) to end grading early.
  "process-exit": {
    gemm: solution(insertAfter(TASK1_START, lines("  // Ends the process with status 0 before the grader sees anything.", "  process.exit(0);"))),
    trace: solution(),
  },
  // sharedMemoryTiling monkeypatches Schedule.prototype.bind to record nothing, and get() to claim the binding.
  "patched-schedule": {
    gemm: solution(
      insertAfter(
        TASK1_START,
        lines(
          '  // bind() "fixed": it only remembers the thread, and get() reports the remembered thread.',
          "  const claimed = new Map<LoopRV, string>();",
          "  const realGet = Schedule.prototype.get;",
          "  Schedule.prototype.bind = function (loop: LoopRV, thread: string): void {",
          "    claimed.set(loop, thread);",
          "  };",
          "  Schedule.prototype.get = function (this: Schedule, rv: LoopRV) {",
          "    const node = realGet.call(this, rv);",
          "    const thread = claimed.get(rv);",
          "    return thread === undefined ? node : { ...node, threadTag: thread };",
          "  } as typeof realGet;",
        ),
      ),
    ),
    trace: solution(),
  },
  // sharedMemoryTiling replaces the Schedule trace getter by a forged "perfect" task-1 trace.
  "forged-trace": {
    gemm: solution(
      insertAfter(
        TASK1_START,
        lines(
          "  // Every schedule now reports the interesting part of a perfect task-1 trace (without the",
          '  // lookups of the gemm block and its loops, which it "does not need").',
          "  const perfect = {",
          '    format: "tessera-trace",',
          "    version: 1,",
          "    instructions: [",
          '      { kind: "Split", inputs: ["l1", null, tileX], attrs: [true, false], outputs: ["l4", "l5"] },',
          '      { kind: "Split", inputs: ["l2", null, tileY], attrs: [true, false], outputs: ["l6", "l7"] },',
          '      { kind: "Split", inputs: ["l3", null, tileK], attrs: [true, false], outputs: ["l8", "l9"] },',
          '      { kind: "Reorder", inputs: ["l4", "l6", "l8", "l5", "l7", "l9"], attrs: [], outputs: [] },',
          '      { kind: "Bind", inputs: ["l4"], attrs: ["blockIdx.x"], outputs: [] },',
          '      { kind: "Bind", inputs: ["l6"], attrs: ["blockIdx.y"], outputs: [] },',
          "    ],",
          "    decisions: [],",
          "  };",
          '  Object.defineProperty(Schedule.prototype, "trace", { get: () => ({ toJSON: () => perfect }) });',
        ),
      ),
    ),
    trace: solution(),
  },
  // Task 2 is left undone, so task 3 runs on the solution's task 2; task 3 prints the IR it was
  // given and throws it as its error message, to read the solution's schedule from the report.
  "exfiltrates-solution": {
    gemm: solution(
      insertAfter(TASK2_START, lines('  throw new Error("TODO(task 2): registerTiling is not implemented yet");')),
      insertBefore(
        lines("  for (const stage of [aShared, bShared]) {"),
        lines("  // Whatever schedule the grader started this run from, show it.", "  console.log(sch.script());", "  throw new Error(sch.script());"),
      ),
    ),
    trace: solution(),
  },
  // Part 2: the pasted trace has 64×64 = 4096 threads per block (the GPU allows 1024).
  "too-many-threads": {
    gemm: solution(),
    trace: solution(
      replace("sch.samplePerfectTile(l1, 3, 8, [16, 16, 8])", "sch.samplePerfectTile(l1, 3, 8, [8, 64, 4])"),
      replace("sch.samplePerfectTile(l2, 3, 8, [16, 16, 8])", "sch.samplePerfectTile(l2, 3, 8, [8, 64, 4])"),
      replace("sch.samplePerfectTile(l3, 3, 4, [64, 32, 1])", "sch.samplePerfectTile(l3, 3, 4, [128, 16, 1])"),
    ),
  },
  // Part 2: the pasted trace cuts k into chunks of 4 bound to threadIdx.z: the threads race on their partial sums.
  "racy-trace": {
    gemm: solution(),
    trace: solution(
      replace("sch.samplePerfectTile(l3, 3, 4, [64, 32, 1])", "sch.samplePerfectTile(l3, 3, 4, [512, 4, 1])"),
      insertAfter(lines('  sch.bind(l17, "threadIdx.y");'), lines('  sch.bind(l20, "threadIdx.z");')),
    ),
  },
  // Part 2: the bind lines were deleted from the pasted trace.
  "unbound-trace": {
    gemm: solution(),
    trace: solution(
      remove(lines('  sch.bind(l13, "blockIdx.x");', '  sch.bind(l16, "blockIdx.y");', '  sch.bind(l14, "threadIdx.x");', '  sch.bind(l17, "threadIdx.y");')),
      remove(lines('  sch.bind(l33, "threadIdx.x");', '  sch.bind(l34, "threadIdx.y");')),
      remove(lines('  sch.bind(l42, "threadIdx.x");', '  sch.bind(l43, "threadIdx.y");')),
    ),
  },
} satisfies Record<string, SubmissionCase>;

export type CaseName = keyof typeof CASES;

/** A case written to disk: grade `dir`, then `remove()` it. */
export interface WrittenSubmission {
  readonly dir: string;
  remove(): Promise<void>;
}

/** Writes case `name` into a fresh folder under the OS temp dir. */
export function writeSubmission(name: CaseName): Promise<WrittenSubmission> {
  return writeDerivedSubmission(name, CASES[name]);
}

/** Writes a submission derived from the handed-out files (`label` names it in errors and the folder) into a fresh temp folder. */
export async function writeDerivedSubmission(label: string, c: SubmissionCase): Promise<WrittenSubmission> {
  const name = label;
  const dir = await realpath(await mkdtemp(join(tmpdir(), `tessera-case-${name}-`)));
  const written: WrittenSubmission = { dir, remove: () => rm(dir, { recursive: true, force: true }) };
  try {
    const gemm = typeof c.gemm === "function" ? c.gemm(dir) : c.gemm;
    const trace = typeof c.trace === "function" ? c.trace(dir) : c.trace;
    if (gemm.edits.length + trace.edits.length === 0) throw new Error(`submission case "${name}" edits nothing: it would be a copy of its base files`);
    await writeFile(join(dir, "gemm_relu_add.ts"), await derive(name, "gemm_relu_add.ts", gemm));
    await writeFile(join(dir, "trace_submission.ts"), await derive(name, "trace_submission.ts", trace));
  } catch (err) {
    await written.remove();
    throw err;
  }
  return written;
}

async function derive(name: string, file: SubmissionFile, recipe: FileRecipe): Promise<string> {
  const where = `submission case "${name}", ${file} (from the ${recipe.base})`;
  let text = await readFile(join(recipe.base === "solution" ? SOLUTION_DIR : STARTER_DIR, file), "utf8");
  if (recipe.base === "solution") text = withoutInstructorHeader(text, name, where);
  for (const edit of recipe.edits) text = applyEdit(text, edit, where);
  return text;
}

/**
 * A student's file never carries the solution's "INSTRUCTOR SOLUTION" header comment: it is
 * replaced by one naming the case (so any such text in a report comes from the instructor's files).
 */
function withoutInstructorHeader(text: string, name: string, where: string): string {
  const header = /^\/\*\*\n \* INSTRUCTOR SOLUTION\b[\s\S]*?\n \*\/\n/.exec(text);
  if (header === null) throw new Error(`${where}: the file no longer starts with its "INSTRUCTOR SOLUTION" header comment`);
  return `/** Test submission "${name}": see apps/autograder/test/submission-cases.ts. */\n${text.slice(header[0].length)}`;
}

function applyEdit(text: string, edit: Edit, where: string): string {
  if ("append" in edit) return text.endsWith("\n") ? text + edit.append : `${text}\n${edit.append}`;
  const count = edit.find === "" ? 0 : text.split(edit.find).length - 1;
  if (count !== 1) throw new Error(`${where}: the text to replace occurs ${count} times, not exactly once:\n${edit.find}`);
  const at = text.indexOf(edit.find);
  return text.slice(0, at) + edit.by + text.slice(at + edit.find.length);
}
