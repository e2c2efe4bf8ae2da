/**
 * Meaning preservation of the front passes on a corpus entry, shared by execution.test.ts and
 * execution-large.test.ts (the two largest entries, a minute of executor time: `pnpm test:slow`).
 */
import type { CorpusEntry } from "@tessera/corpus";
import type { PrimFunc } from "@tessera/ir";
import { PASSES_FRONT, simplifyPass } from "../../src/lower/passes/index.js";
import { CTX, expectSameResults } from "./helpers.js";

const INPUT_SEED = 11;

/** The corpus entries whose serial runs cost most (the 128³ fast and pipelined gemms): checked by execution-large.test.ts. */
export const LARGE_CORPUS_ENTRIES: readonly string[] = ["gemm_relu_add_fast", "gemm_relu_add_pipelined"];

/** Corpus entries built on the manual schedule (the unrolled one only adds annotations). */
const MANUAL_GEMM_ENTRIES: ReadonlySet<string> = new Set(["gemm_relu_add_manual", "gemm_relu_add_unrolled"]);

/**
 * The manual schedule's accumulator matmul_local is private to each thread, but its reduction loop
 * k_0 encloses the threadIdx loops, so it is allocated once per thread block. Once compacted to
 * the 4×4 tile of one thread, the serial executor (one allocation, threads run in turn) makes all
 * threads share it: it is only checkable by an executor with per-thread local memory.
 */
export function serialExecutable(entry: string, passesRun: number): boolean {
  // Its cooperative fetches are bound to threadIdx.x inside the compute's threadIdx.x loop; once
  // lowerOpaqueBlock gives both one thread variable, each thread fetches only its own elements,
  // which a serial run of the threads reads before the later threads have written them.
  if (entry === "gemm_relu_add_pipelined") return passesRun <= PASSES_FRONT.findIndex((p) => p.name === "injectSoftwarePipeline") + 1;
  // Its register stages (A_local, B_local) are fetched and stored by the thread that owns them:
  // once compacted to one thread's elements, threads run one after another would share them.
  if (entry === "gemm_relu_add_fast") return passesRun <= PASSES_FRONT.findIndex((p) => p.name === "compactBufferAllocation");
  if (!MANUAL_GEMM_ENTRIES.has(entry)) return true;
  // After planning but before compaction, its per-thread register tiles are still 128×128 arrays
  // allocated 131072 times (≈20 s per run): checked on a smaller instance below instead.
  return passesRun < 2;
}

/**
 * After every prefix of passes 1–7 and the simplifier, `entry` computes what its unscheduled function
 * computes (where the serial executor can tell). All prefixes run on one set of random inputs, so
 * the unscheduled function runs once.
 */
export function checkThroughFrontPasses(entry: CorpusEntry): void {
  let f = entry.build().func;
  const reference = entry.original();
  // A pass that changes nothing returns its input: the function checked last is not run again.
  let checked: PrimFunc | undefined;
  const check = (func: PrimFunc) => {
    if (func === checked) return;
    expectSameResults(func, reference, INPUT_SEED);
    checked = func;
  };
  PASSES_FRONT.forEach((pass, i) => {
    f = pass.run(f, CTX);
    if (serialExecutable(entry.name, i + 1)) check(f);
  });
  const simplified = simplifyPass.run(f, CTX);
  if (serialExecutable(entry.name, PASSES_FRONT.length)) check(simplified);
}
