import { stat } from "node:fs/promises";
import {
  type CModule,
  type DeviceKernel,
  type LoweredModule,
  buildC,
  codegenCuda,
  codegenMetal,
  codegenWgsl,
  cudaTarget,
  exportHeader,
  lower,
  target as resolveTarget,
  targetKindOf,
} from "@tessera/codegen";
import { type Buffer, type PrimFunc, type Var, TesseraError, primFunc, printTVMScript, structuralHash, variable } from "@tessera/ir";
import { type Database, JSONDatabase, queryBestRecord, queryBestSchedule } from "@tessera/meta-schedule";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadScheduled } from "../scheduled.js";
import { buildSpec } from "./specs.js";

/** Where `--database DIR` records come from; tests give an in-memory database. */
export interface BuildDeps {
  readonly openDatabase: (dir: string) => Promise<Database>;
}

/** Read-only: applying a database never creates, repairs or appends to it. */
export const defaultBuildDeps: BuildDeps = { openDatabase: async (dir) => new JSONDatabase(dir, { readOnly: true }) };

const EMITS = ["cuda", "header", "launch", "ir"] as const;
type Emit = (typeof EMITS)[number];
const CPU_EMITS = ["c", "ir"] as const;
type CpuEmit = (typeof CPU_EMITS)[number];
/** What a WebGPU or Metal target emits: its shader source, launch metadata (WebGPU) or the lowered kernels. */
const SHADER_EMITS = { webgpu: ["wgsl", "launch", "ir"], metal: ["metal", "ir"] } as const;
type ShaderKind = keyof typeof SHADER_EMITS;
type ShaderEmit = (typeof SHADER_EMITS)[ShaderKind][number];

function parseShaderEmit(value: string | undefined, kind: ShaderKind, targetName: string): ShaderEmit {
  const emits: readonly string[] = SHADER_EMITS[kind];
  if (value === undefined) return emits[0] as ShaderEmit;
  if (emits.includes(value)) return value as ShaderEmit;
  throw new CliError(`--emit for the ${kind} target ${targetName} must be one of ${emits.join(", ")}, got '${value}'`);
}

function parseEmit(value: string | undefined): Emit {
  if (value === undefined) return "cuda";
  if ((EMITS as readonly string[]).includes(value)) return value as Emit;
  throw new CliError(`--emit must be one of ${EMITS.join(", ")}, got '${value}'${value === "c" ? " (--emit c needs a CPU target: --target c)" : ""}`);
}

function parseCpuEmit(value: string | undefined, targetName: string): CpuEmit {
  if (value === undefined) return "c";
  if ((CPU_EMITS as readonly string[]).includes(value)) return value as CpuEmit;
  throw new CliError(`--emit for the CPU target ${targetName} must be one of ${CPU_EMITS.join(", ")}, got '${value}'`);
}

/**
 * `tessera build FILE --target NAME [--trace T.json | --database DIR] [--func NAME] [--emit cuda|header|launch|ir]`:
 * lower a (scheduled) function for a GPU target and print the CUDA source (default), a C++
 * header with a host launcher, the launch metadata as JSON, or the lowered IR of each kernel.
 * For a CPU target (`c`, `llvm`, `llvm -mcpu=NAME`) it prints the generated C (`--emit c`, the
 * default) or the lowered function (`--emit ir`).
 * The schedule is a trace replayed on the function, or the best record of the function in a
 * tuning database (`tessera tune`'s work dir).
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  return runBuild(args, io, defaultBuildDeps);
}

export async function runBuild(args: readonly string[], io: CliIO, deps: BuildDeps): Promise<number> {
  const { positionals, values } = parseCommandArgs(buildSpec, args);
  if (positionals.length !== 1 || values.target === undefined) throw new CliError(`usage: tessera build ${buildSpec.usage}`);
  const targetName = values.target;
  const kind = targetKindOf(targetName);
  const cpu = kind === "c";
  const shader = kind === "webgpu" || kind === "metal" ? kind : undefined;
  const emit = cpu ? parseCpuEmit(values.emit, targetName) : shader !== undefined ? parseShaderEmit(values.emit, shader, targetName) : parseEmit(values.emit);
  const file = positionals[0]!;
  if (values.trace !== undefined && values.database !== undefined) throw new CliError("give either --trace or --database, not both");
  const loaded = await loadScheduled(file, { trace: values.trace, func: values.func, fp32Precision: values["fp32-precision"] });
  const { name } = loaded;
  const func = values.database === undefined ? loaded.func : await bestFromDatabase(values.database, file, loaded.name, loaded.original, values.target, deps);
  try {
    if (cpu) io.stdout(cpuArtefact(buildC(func, targetName), emit as CpuEmit));
    else if (shader !== undefined) io.stdout(shaderArtefact(func, targetName, emit as ShaderEmit));
    else io.stdout(artefact(lower(func, cudaTarget(targetName)), emit as Emit));
  } catch (err) {
    // Lowering, target and codegen errors are about the user's program: no stack trace.
    if (err instanceof TesseraError) throw new CliError(`${file}: ${name}: ${err.message}`);
    throw err;
  }
  return 0;
}

/** The function scheduled by its best record for `targetName` in the database at `dir`. */
async function bestFromDatabase(dir: string, file: string, name: string, func: PrimFunc, targetName: string, deps: BuildDeps): Promise<PrimFunc> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new CliError(`--database ${dir}: not a directory`);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`--database ${dir}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : String(err)}`);
  }
  try {
    const database = await deps.openDatabase(dir);
    // Records name the canonical target (an alias such as "cuda" resolves to it).
    const wanted = resolveTarget(targetName).name;
    const best = queryBestSchedule(database, func, wanted);
    if (best !== undefined) return best.sch.func;
    const other = queryBestRecord(database, func);
    if (other !== undefined) {
      throw new CliError(
        `--database ${dir}: the tuning records of function ${name} of ${file} were measured for ${other.target.name}, not ${wanted}; ` +
          `build with --target ${other.target.name}, or tune for ${wanted}: tessera tune ${file} --work-dir ${dir} --target ${targetName} --trials N`,
      );
    }
    throw new CliError(
      `--database ${dir}: no tuning record for function ${name} of ${file} (workload ${structuralHash(func)}); ` +
        `tune it first: tessera tune ${file} --work-dir ${dir} --target NAME --trials N`,
    );
  } catch (err) {
    if (err instanceof TesseraError) throw new CliError(`--database ${dir}: ${err.message}`);
    throw err;
  }
}

/** The generated C, or the lowered (flat) function the C is printed from. */
function cpuArtefact(module: CModule, emit: CpuEmit): string {
  if (emit === "c") return module.source;
  const text = printTVMScript(module.lowered.func, { funcName: module.name });
  return text.endsWith("\n") ? text : `${text}\n`;
}

function artefact(module: LoweredModule, emit: Emit): string {
  switch (emit) {
    case "cuda":
      return codegenCuda(module).source;
    case "header":
      return exportHeader(module);
    case "launch":
      return `${JSON.stringify(codegenCuda(module).kernels, null, 2)}\n`;
    case "ir":
      return module.kernels.map(kernelIR).join("\n");
  }
}

/** The WGSL or Metal source of `func` lowered for a WebGPU or Metal target, its launch metadata or its lowered kernels. */
function shaderArtefact(func: PrimFunc, targetName: string, emit: ShaderEmit): string {
  const t = resolveTarget(targetName);
  if (t.kind !== "webgpu" && t.kind !== "metal") throw new CliError(`--target ${targetName} is not a WebGPU or Metal target`);
  if (t.kind === "metal") {
    const module = lower(func, t);
    return emit === "ir" ? module.kernels.map(kernelIR).join("\n") : codegenMetal(module).source;
  }
  const module = lower(func, t);
  if (emit === "ir") return module.kernels.map(kernelIR).join("\n");
  const wgsl = codegenWgsl(module);
  if (emit === "wgsl") return wgsl.source;
  const launch = wgsl.kernels.map(({ source: _, ...rest }) => rest);
  return `${JSON.stringify({ params: wgsl.params, workspaces: wgsl.workspaces, kernels: launch }, null, 2)}\n`;
}

/** A kernel printed as a PrimFunc named after it, headed by its launch configuration. */
function kernelIR(kernel: DeviceKernel): string {
  const params: Var[] = [];
  const bufferMap = new Map<Var, Buffer>();
  for (const p of kernel.params) {
    if (p.kind === "scalar") {
      params.push(p.var);
      continue;
    }
    const handle = variable(p.name, "handle");
    params.push(handle);
    bufferMap.set(handle, p.buffer);
  }
  const { grid, block, dynamicSharedBytes, minBlocksPerSM } = kernel.launch;
  const heading =
    `# kernel ${kernel.name}: grid (${grid.join(", ")}), block (${block.join(", ")}), ` +
    `${kernel.sharedBytes} B static shared memory, ${dynamicSharedBytes} B dynamic` +
    (minBlocksPerSM === undefined ? "" : `, at least ${minBlocksPerSM} blocks per SM (__launch_bounds__)`);
  const func = primFunc(params, bufferMap, kernel.body, { global_symbol: kernel.name, "tir.noalias": true });
  const text = printTVMScript(func, { funcName: kernel.name });
  return `${heading}\n${text.endsWith("\n") ? text : `${text}\n`}`;
}
