/**
 * The command line of every subcommand: usage, options, defaults, targets and exit codes. This
 * module imports nothing heavy, so `tessera --help` and `tessera NAME --help` load no compiler
 * package; tests check the hard-coded lists (targets, strategies) against the packages.
 */
import type { CommandSpec } from "../help/spec.js";

/** GPU targets of @tessera/codegen (CUDA_TARGET_NAMES); checked by a test. */
export const GPU_TARGETS = ["nvidia/tesla-t4", "nvidia/a100", "nvidia/h100", "nvidia/h200", "cuda"] as const;
/** Search strategies of @tessera/meta-schedule (STRATEGY_NAMES); checked by a test. */
export const STRATEGIES = ["evolutionary", "replay-trace"] as const;
export const DEFAULT_SIMULATE_TARGET = "nvidia/tesla-t4";

const FUNC = {
  name: "func",
  type: "string",
  value: "NAME",
  description: "the function to use in a file of several",
  default: "the module's entry function",
} as const;
/** The requested precision of float32 GEMMs (withFp32Precision of @tessera/meta-schedule). */
const FP32_PRECISION = {
  name: "fp32-precision",
  type: "string",
  value: "ieee|tf32|3xtf32",
  description:
    "compute the function's float32 GEMMs in IEEE float32, in tf32 on tensor cores (operands rounded to 10-bit mantissas), or in 3xTF32 (three tf32 products, float32 accuracy); tf32 and 3xtf32 change the function, and so its tuning records",
  default: "ieee",
} as const;
const SEED = { name: "seed", type: "string", value: "N", description: "seed of the random inputs (a non-negative integer)", default: "0" } as const;
const TRACE_FORMATS = {
  title: "Trace formats",
  lines: [
    "JSON: Tessera's trace format (docs/trace-format.md) or TVM's JSON array.",
    'Text: what `sch.trace.show()` prints, e.g. a trace_submission.ts (`const b0 = sch.getBlock("gemm");` …), one call per line.',
  ],
} as const;
const GPU_TARGET_NOTE = `CUDA: ${GPU_TARGETS.join(", ")} (cuda: a generic sm_75 GPU); TVM options such as "cuda -arch=sm_90 -max_threads_per_block=512" (quote it).`;
const C_TARGET_NOTE = "C (native code for the host CPU): c, llvm, llvm -mcpu=NAME (quote it), c -num-cores=N.";
const SHADER_TARGET_NOTE =
  'WebGPU (WGSL) and Metal (MSL source, untested on Apple hardware): webgpu (WebGPU\'s default limits; "webgpu -max_num_threads=1024 -max_shared_memory_per_block=32768" for a desktop adapter), metal, apple/m1-gpu, apple/m2-gpu.';
const INPUT_ERROR = [2, "bad arguments, or an error in an input file (named with line and column)"] as const;

export const printSpec = {
  name: "print",
  usage: "FILE [--dialect course|tvm] [--color | --no-color]",
  summary: "parse a TVMScript file and print it in canonical form",
  description: [
    "Parses FILE (a function or an IRModule) and prints it back in canonical TVMScript; a file of one function prints as that function.",
    "FILE may be written in the course's TVMScript (T.block, a block's T.alloc_buffer) or today's TVM's (T.sblock, T.sblock_alloc_buffer, a flat T.alloc_buffer); --dialect picks the spelling printed.",
  ],
  options: [
    {
      name: "dialect",
      type: "string",
      value: "course|tvm",
      description: "the TVMScript spelling to print: the course's notebooks' (T.block) or today's TVM's (T.sblock)",
      default: "course",
    },
    {
      name: "color",
      type: "boolean",
      description: "colour the output even when it is not a terminal",
      default: "colour on a terminal; NO_COLOR=1 turns it off, FORCE_COLOR=1 on",
    },
    { name: "no-color", type: "boolean", description: "never colour the output" },
  ],
  exitCodes: [[0, "printed"], INPUT_ERROR],
} as const satisfies CommandSpec;

export const equalSpec = {
  name: "equal",
  usage: "A B [--names]",
  summary: "check two TVMScript programs for structural equality",
  description: [
    "Compares two TVMScript files structurally: names of variables, buffers and blocks do not matter unless --names is given. Two files of one function each compare as functions, so `def main` and `def f` can be equal.",
  ],
  options: [{ name: "names", type: "boolean", description: "names must match too" }],
  exitCodes: [[0, "structurally equal"], [1, "different: the first difference is printed"], INPUT_ERROR],
} as const satisfies CommandSpec;

export const runSpec = {
  name: "run",
  usage: "FILE [--seed N] [--func NAME]",
  summary: "execute a PrimFunc on the CPU on seeded random inputs and summarise every buffer",
  description: [
    "Runs the function in the sequential executor on random inputs drawn from the seed, then prints each buffer's shape, dtype, statistics and first values, marking the buffers it wrote.",
  ],
  options: [SEED, FUNC],
  exitCodes: [
    [0, "ran"],
    [2, "bad arguments, an error in the file, or an out-of-bounds access while running"],
  ],
} as const satisfies CommandSpec;

export const applySpec = {
  name: "apply",
  usage: "FILE --trace TRACE [--func NAME]",
  summary: "replay a schedule trace (JSON or trace.show() text) on a TVMScript function and print the result",
  description: ["Replays the schedule trace TRACE on the function and prints the scheduled function as TVMScript."],
  options: [{ name: "trace", type: "string", value: "TRACE", description: "the schedule trace (JSON or text, see below)", required: true }, FUNC],
  notes: [TRACE_FORMATS],
  exitCodes: [
    [0, "printed the scheduled function"],
    [2, "bad arguments, an error in FILE or TRACE, or a step of the trace that does not apply (named)"],
  ],
} as const satisfies CommandSpec;

export const simulateSpec = {
  name: "simulate",
  usage: "FILE [--trace TRACE] [--func NAME] [--target NAME] [--seed N] [--bank-conflicts]",
  summary: "lower for a GPU, run the kernels in the GPU simulator and compare with the sequential executor",
  description: [
    "Lowers the (scheduled) function for a GPU target, runs its kernels in the simulator on random inputs and compares the outputs with the sequential executor on the unscheduled function. The function must be scheduled for a GPU (its loops bound to blockIdx/threadIdx), by the file itself or by --trace.",
  ],
  options: [
    { name: "trace", type: "string", value: "TRACE", description: "schedule the function with this trace first (JSON or text)" },
    FUNC,
    { name: "target", type: "string", value: "NAME", description: "the GPU target", default: DEFAULT_SIMULATE_TARGET },
    SEED,
    {
      name: "bank-conflicts",
      type: "boolean",
      description: "also print shared-memory wavefronts and bank conflicts per access (they cost time, not correctness: the exit code does not change)",
    },
  ],
  notes: [{ title: "Targets", lines: [GPU_TARGET_NOTE] }, TRACE_FORMATS],
  exitCodes: [[0, "outputs match, no shared-memory race"], [1, "a mismatch, a race, an out-of-bounds access or barrier divergence"], INPUT_ERROR],
} as const satisfies CommandSpec;

export const buildSpec = {
  name: "build",
  usage: "FILE --target NAME [--trace TRACE | --database DIR] [--func NAME] [--fp32-precision P] [--emit KIND]",
  summary: "lower a (scheduled) function for a GPU or the CPU and print CUDA, a header, launch metadata, C or the lowered IR",
  description: [
    "Lowers the function, scheduled by --trace or by its best record in a tuning database (tessera tune's work dir), and prints one artefact. GPU targets emit cuda (the CUDA C), header (a self-contained .cuh whose host launcher is launch_<function>), launch (the launch metadata as JSON) or ir (the lowered kernels). The webgpu target emits wgsl (one shader module per kernel), launch (workgroups, workgroup size and binding order as JSON) or ir; Metal targets emit metal (Metal Shading Language) or ir. CPU targets emit c (C with OpenMP parallel and simd loops) or ir (the lowered function).",
    "A function named main is exported from C as tvmgen_default_main (main is reserved in C), as TVM's C code generator names it; the header comment of the C says so.",
  ],
  options: [
    { name: "target", type: "string", value: "NAME", description: "the GPU or CPU target (see below)", required: true },
    { name: "trace", type: "string", value: "TRACE", description: "schedule the function with this trace (JSON or text)" },
    { name: "database", type: "string", value: "DIR", description: "schedule it with its best record for the target in this tuning database (read only)" },
    FUNC,
    FP32_PRECISION,
    {
      name: "emit",
      type: "string",
      value: "KIND",
      description: "cuda, header, launch or ir for a CUDA GPU; wgsl, launch or ir for webgpu; metal or ir for Metal; c or ir for a CPU",
      default: "cuda for a CUDA GPU, wgsl for webgpu, metal for Metal, c for a CPU",
    },
  ],
  notes: [{ title: "Targets", lines: [GPU_TARGET_NOTE, SHADER_TARGET_NOTE, C_TARGET_NOTE] }, TRACE_FORMATS],
  exitCodes: [
    [0, "printed"],
    [2, "bad arguments, an error in an input, or a function that cannot be lowered for the target (e.g. unscheduled for a GPU)"],
  ],
} as const satisfies CommandSpec;

export const tuneSpec = {
  name: "tune",
  usage: "FILE --target NAME --trials N --work-dir DIR [options]",
  summary: "tune a function with MetaSchedule (TVM's tune_tir): trial log, summary table, JSON database and tuning curve in the work dir",
  description: [
    "Tunes the function with MetaSchedule: TVM's trial log and progress on stderr, TVM's summary table on stdout; the JSON database, tuning-history.json and tuning-curve.svg/.png go into the work dir. Build the best schedule with `tessera build FILE --target NAME --database DIR`.",
    "--dry-run measures nothing: the simulated runner estimates each candidate's time from the GPU simulator's cost model, and every figure printed is labelled as an estimate.",
  ],
  options: [
    {
      name: "target",
      type: "string",
      value: "NAME",
      description: "the GPU (measured on this machine's GPU, or by --redis workers) or the CPU (compiled by gcc and measured here)",
      required: true,
    },
    { name: "trials", type: "string", value: "N", description: "how many candidates to measure in all", required: true },
    { name: "work-dir", type: "string", value: "DIR", description: "where the database, history and curves go (created when missing)", required: true },
    {
      name: "space",
      type: "string",
      value: "auto|FILE.ts",
      description:
        "the design space: the target's automatic space, or a file exporting a schedule function `export default (sch) => { … }` (a .ts file needs `pnpm tessera`)",
      default: "auto",
    },
    { name: "strategy", type: "string", value: "NAME", description: `the search strategy: ${STRATEGIES.join(" or ")}`, default: "evolutionary" },
    { name: "seed", type: "string", value: "N", description: "seed of the search", default: "random" },
    FUNC,
    FP32_PRECISION,
    { name: "trials-per-iter", type: "string", value: "N", description: "candidates measured per search iteration", default: "64" },
    { name: "dry-run", type: "boolean", description: "estimate instead of measuring: the simulated runner, no GPU needed (GPU targets only)" },
    {
      name: "search-workers",
      type: "string",
      value: "N",
      description:
        "worker threads that replay, postprocess and lower the evolutionary search's candidates, started once the search has replayed for 4 CPU s in its own thread (0: all in the search's thread); a seed picks the same candidates with any number",
      default: "cores - 1",
    },
    {
      name: "overlap",
      type: "boolean",
      description:
        "search the next batch while the current one builds and is measured (faster on a many-core host; the search then learns each batch's times one batch later, so a seed picks other candidates than without)",
    },
    {
      name: "redis",
      type: "string",
      value: "URL",
      description:
        "send the measurements to the job queue's workers (`tessera worker`, or the autograder's `pnpm grade worker`) at redis://HOST:PORT[/DB] (GPU targets only)",
    },
    {
      name: "gpus",
      type: "string",
      value: "LIST",
      description:
        "start one measuring worker per GPU of this machine (e.g. 0,1), each pinned to its GPU, for the run's length; their logs go to DIR/workers/. Without --redis they share a private redis-server on loopback (TESSERA_REDIS_SERVER or redis-server on the PATH)",
    },
  ],
  notes: [{ title: "Targets", lines: [GPU_TARGET_NOTE, C_TARGET_NOTE] }],
  exitCodes: [
    [0, "tuned: the best schedule is in the work dir"],
    [1, "no candidate ran successfully, Redis cannot be reached, or a --gpus worker did not start"],
    [2, "bad arguments, an error in FILE, no GPU without --dry-run"],
  ],
} as const satisfies CommandSpec;

const REDIS_URL = {
  name: "redis",
  type: "string",
  value: "URL",
  description: "the job queue's Redis: redis[s]://[USER:PASSWORD@]HOST:PORT[/DB]",
  required: true,
} as const;

const REDIS_PASSWORD_FILE = {
  name: "redis-password-file",
  type: "string",
  value: "FILE",
  description: "the Redis password, read from FILE (also TESSERA_REDIS_PASSWORD, or in the URL)",
} as const;

export const queueSpec = {
  name: "queue",
  usage: "dead-letters --redis URL [--retry ID | --all]",
  summary: "the job queue's dead letters: list the jobs that failed for good, or put them back in the queue",
  description: [
    "Lists the dead-letter queue: each job that failed for good (its attempts spent, its workers lost too often, or refused as malformed), with its kind, attempts, time, worker and reason. With --retry ID (or --all) the job goes back in the queue with fresh attempts and its dead letter is removed; run the batch or tuning run again to pick up its result.",
  ],
  options: [
    REDIS_URL,
    { name: "retry", type: "string", value: "ID", description: "put the dead-lettered job ID back in the queue" },
    { name: "all", type: "boolean", description: "put every dead-lettered job back in the queue" },
    REDIS_PASSWORD_FILE,
  ],
  exitCodes: [
    [0, "listed, or retried"],
    [1, "Redis cannot be reached, or no dead letter has that ID"],
    [2, "bad arguments"],
  ],
} as const satisfies CommandSpec;

export const workerSpec = {
  name: "worker",
  usage: "--redis URL [--gpu N] [options]",
  summary: "measure tuning candidates for `tessera tune --redis` on this machine's GPU until SIGTERM",
  description: [
    'A worker of the job queue that takes the "measure" jobs of tuning runs (`tessera tune --redis`), one at a time, and times each candidate on its GPU (with --dry-run runs, in the simulated runner). Start one per GPU (--gpu N), on any number of machines; `tessera tune --gpus 0,1` starts them itself. Workers on one GPU, the autograder\'s included, take turns on it through a lock in Redis. SIGTERM or SIGINT finishes the job in hand, then exits.',
  ],
  options: [
    REDIS_URL,
    { name: "gpu", type: "string", value: "N", description: "use GPU N only (sets CUDA_VISIBLE_DEVICES for this worker and its measuring child)" },
    { name: "name", type: "string", value: "NAME", description: "shown in the log and stored on the jobs it takes", default: "host:pid" },
    REDIS_PASSWORD_FILE,
    { name: "insecure", type: "boolean", description: "work for a Redis that answers without a password although it is not on loopback" },
  ],
  exitCodes: [
    [0, "stopped by SIGTERM or SIGINT"],
    [1, "Redis cannot be reached, or refused as open"],
    [2, "bad arguments"],
  ],
} as const satisfies CommandSpec;

export const commandSpecs: readonly CommandSpec[] = [printSpec, equalSpec, runSpec, applySpec, simulateSpec, buildSpec, tuneSpec, queueSpec, workerSpec];
