/**
 * TVM's VerifyGPUCode: rejects a candidate before anything is compiled — first the cheap check of
 * the threads per block against the bounds MultiLevelTiling annotated
 * (`meta_schedule.thread_extent_low/high_inclusive`), then lowering for the target, whose last
 * pass checks the GPU limits (threads, shared memory, vthreads, vector widths, local memory).
 * The lowered module is kept, keyed by the scheduled function, for the cost model to read
 * (`loweredModuleFor`).
 *
 * A search replays many traces that give a program it has lowered already (a mutation of a knob
 * the program does not use, two slots breeding the same child, a parent copied into the next
 * generation and mutated back), and lowering is about 40 % of a replay's cost. So the verdict of
 * each program (its module, or the reason it was rejected) is remembered per thread by the target
 * and the program's structural hash with names compared: a function equal to it, names included,
 * lowers to the same module (up to the sign of a float zero, which structure does not see and no
 * verdict reads). A remembered verdict is the one lowering would give, so a search picks the same
 * candidates with or without it, in any thread.
 */
import { LruMap } from "../support/lru-map.js";
import { type CudaTarget, type GpuLimit, GpuVerifyError, type LoweredModule, LoweringError, lower } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { programHashesOf } from "../support/program-hashes.js";
import type { Schedule } from "@tessera/schedule";
import { THREAD_EXTENT_HIGH, THREAD_EXTENT_LOW, annotationNumber } from "../schedule-utils/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedBlocks, blockThreadExtents } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

const LOWERED = new WeakMap<PrimFunc, LoweredModule>();

/** The module VerifyGPUCode lowered for exactly this function (same object), if it did. */
export function loweredModuleFor(func: PrimFunc): LoweredModule | undefined {
  return LOWERED.get(func);
}

/** Keeps `module` as VerifyGPUCode's module of `func` (a candidate verified in a search worker thread, rebuilt here). */
export function rememberLoweredModule(func: PrimFunc, module: LoweredModule): void {
  LOWERED.set(func, module);
}

/** A program's verdict: the module it lowered to, or the rejection lowering gave. */
type Verdict = { readonly module: LoweredModule } | { readonly rejection: PostprocResult };

/** Most verdicts remembered per thread (a 2048³ gemm's module is a few hundred KB). */
export const VERDICT_MEMO_SIZE = 256;

/** Verdicts by target and structural hash; insertion order is recency (a hit moves to the end, the first is evicted). */
const VERDICTS = new LruMap<string, Verdict>(VERDICT_MEMO_SIZE);
const TARGET_KEYS = new WeakMap<object, string>();

/** What identifies a target's limits: its JSON, computed once per target object (a worker receives a clone per job). */
function targetKeyOf(target: object): string {
  let key = TARGET_KEYS.get(target);
  if (key === undefined) {
    key = JSON.stringify(target);
    TARGET_KEYS.set(target, key);
  }
  return key;
}

/**
 * This thread's verdicts given from the memo and by lowering, and of those lowered the ones that
 * were rejections (the lowering a check before lowering could have saved), since the last
 * `clearVerdictMemo`.
 */
export const verdictMemoCounts = { remembered: 0, lowered: 0, loweredRejected: 0 };

/** Forgets every remembered verdict, and zeroes the counts. */
export function clearVerdictMemo(): void {
  VERDICTS.clear();
  verdictMemoCounts.remembered = 0;
  verdictMemoCounts.lowered = 0;
  verdictMemoCounts.loweredRejected = 0;
}

export class VerifyGPUCode implements Postproc {
  readonly name = "verifyGpuCode";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node } of annotatedBlocks(sch, THREAD_EXTENT_LOW)) {
      const low = annotationNumber(node.annotations, THREAD_EXTENT_LOW) ?? 1;
      const high = annotationNumber(node.annotations, THREAD_EXTENT_HIGH) ?? Infinity;
      const threads = [...blockThreadExtents(sch, rv).values()].reduce((a, b) => a * b, 1);
      if (threads < low) return rejected(`fewer threads per block than ${low}`);
      if (threads > high) return rejected(`more threads per block than ${high}`);
    }
    const func = sch.func;
    const target = gpuTargetOf(ctx, "VerifyGPUCode");
    const key = `${targetKeyOf(target)}\n${programHashesOf(func).withNames}`;
    let verdict = VERDICTS.get(key);
    if (verdict === undefined) {
      verdict = verdictOf(func, target);
      verdictMemoCounts.lowered++;
      if ("rejection" in verdict) verdictMemoCounts.loweredRejected++;
      VERDICTS.set(key, verdict);
    } else {
      verdictMemoCounts.remembered++;
    }
    if ("rejection" in verdict) return verdict.rejection;
    LOWERED.set(func, verdict.module);
    return POSTPROC_OK;
  }
}

/** Lowers `func` for `target`: its module, or the rejection of a GPU limit or lowering error. */
function verdictOf(func: PrimFunc, target: CudaTarget): Verdict {
  try {
    return { module: lower(func, target) };
  } catch (err) {
    if (err instanceof GpuVerifyError && err.limits.length > 0)
      return { rejection: rejected(`exceeds the target's ${err.limits.map(describeLimit).join(" and ")}`, err.message) };
    if (!(err instanceof LoweringError)) throw err;
    return { rejection: rejected(`${err.name}: ${firstLine(err.message)}`, err.message) };
  }
}

const LIMIT_WORDS: Readonly<Record<GpuLimit, string>> = {
  threads: "threads per block",
  grid: "grid size",
  "shared-memory": "shared memory per block",
  "vector-width": "vector width",
  "local-memory": "local memory per thread",
};

function describeLimit(limit: GpuLimit): string {
  return LIMIT_WORDS[limit];
}

function firstLine(message: string): string {
  const line = message.split("\n")[0] ?? message;
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
