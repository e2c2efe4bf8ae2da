/**
 * The lowered CUDA corpus and its `nvcc -cubin -Xptxas -v` resource report, shared by
 * corpus-nvcc.test.ts and scripts/ptxas-report.ts: which modules (the schedule corpus and the
 * 2048³ naive/manual gemm+ReLU+add, the manual one also with unroll pragmas and
 * `__launch_bounds__(256, 2)`, a three-stage software pipeline of it, and the fast schedule; each
 * lowered for the T4 and the H100), one nvcc invocation per
 * architecture over one file per distinct module source, and a parser of the ptxas log that attributes every
 * kernel to its file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { annotateKernel, fastSchedule, manualSchedule, naiveSchedule, pipelinedGemmSchedule, scheduleCorpus } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import { execa } from "execa";
import { codegenCuda } from "../../src/cuda/index.js";
import type { LoweredModule } from "../../src/lowered.js";
import { lower } from "../../src/lower/pipeline.js";

export const CORPUS_TARGETS = ["nvidia/tesla-t4", "nvidia/h100"] as const;
export const PTXAS_ARCHS = ["sm_75", "sm_90"] as const;

export interface CorpusModule {
  /** `<entry>@<target>`, e.g. `gemm_relu_add_manual_2048@nvidia/h100`. */
  readonly label: string;
  /** A file name for the module's CUDA source. */
  readonly file: string;
  readonly module: LoweredModule;
}

/** Every corpus schedule plus the 2048³ naive, manual and unrolled manual schedules, lowered for each corpus target. */
export function lowerCudaCorpus(): CorpusModule[] {
  const builds: { name: string; build: () => Schedule }[] = [
    ...scheduleCorpus().map((e) => ({ name: e.name, build: e.build })),
    { name: "gemm_relu_add_naive_2048", build: () => naiveSchedule(2048) },
    { name: "gemm_relu_add_manual_2048", build: () => manualSchedule(2048) },
    {
      name: "gemm_relu_add_unrolled_2048",
      build: () => annotateKernel(manualSchedule(2048), "gemm", { unrollMaxStep: 512, unrollExplicit: true, minBlocksPerSM: 2 }),
    },
    { name: "gemm_relu_add_pipelined_3stage_2048", build: () => pipelinedGemmSchedule(2048, { stages: [0, 0, 2], order: [0, 1, 2] }) },
    { name: "gemm_relu_add_fast_2048", build: () => fastSchedule(2048) },
  ];
  return builds.flatMap(({ name, build }) =>
    CORPUS_TARGETS.map((target) => ({
      label: `${name}@${target}`,
      file: `${name}__${target.replace(/\W/g, "_")}.cu`,
      module: lower(build(), target),
    })),
  );
}

/** What ptxas reports for one entry function. */
export interface PtxasKernelRecord {
  readonly kernel: string;
  readonly arch: string;
  readonly registers: number;
  readonly sharedBytes: number;
  readonly stackFrameBytes: number;
  readonly spillStoreBytes: number;
  readonly spillLoadBytes: number;
  /** ptxas "Compile time" of the function (absent from older ptxas). */
  readonly compileMs: number | undefined;
}

type MutableRecord = { -readonly [K in keyof PtxasKernelRecord]: PtxasKernelRecord[K] };

/**
 * Splits a `ptxas -v` log of one nvcc run over several files into one list of entry functions per
 * file, in order: ptxas starts each file with its `bytes gmem` line.
 */
export function parsePtxasLogPerFile(log: string): PtxasKernelRecord[][] {
  const files: MutableRecord[][] = [];
  let current: MutableRecord | undefined;
  for (const line of log.split(/\r?\n/)) {
    let m: RegExpExecArray | null;
    if (/ptxas info\s*:\s*\d+ bytes gmem/.test(line)) {
      files.push([]);
      current = undefined;
    } else if ((m = /Compiling entry function '([^']+)' for '([^']+)'/.exec(line)) !== null) {
      if (files.length === 0) files.push([]);
      current = { kernel: m[1]!, arch: m[2]!, registers: 0, sharedBytes: 0, stackFrameBytes: 0, spillStoreBytes: 0, spillLoadBytes: 0, compileMs: undefined };
      files[files.length - 1]!.push(current);
    } else if (current === undefined) {
      continue;
    } else if ((m = /(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/.exec(line)) !== null) {
      current.stackFrameBytes = Number(m[1]);
      current.spillStoreBytes = Number(m[2]);
      current.spillLoadBytes = Number(m[3]);
    } else if ((m = /Used (\d+) registers/.exec(line)) !== null) {
      current.registers = Number(m[1]);
      current.sharedBytes = Number(/(\d+) bytes smem/.exec(line)?.[1] ?? 0);
    } else if ((m = /Compile time = ([\d.]+) ms/.exec(line)) !== null) {
      current.compileMs = Number(m[1]);
    }
  }
  return files;
}

export interface ArchCompilation {
  readonly arch: string;
  readonly exitCode: number;
  readonly log: string;
  readonly wallMs: number;
  /** How many distinct CUDA sources nvcc compiled: modules whose sources are equal share one file. */
  readonly distinctSources: number;
  /** How many files the ptxas log has a section for (`distinctSources` when all is well). */
  readonly ptxasSections: number;
  /** The entry functions of `modules[k]`, as ptxas reported them. */
  readonly perModule: readonly PtxasKernelRecord[][];
  /** The PTX nvcc generated for `modules[k]` on its way to the cubin (kept from the same run: no second `-ptx` run). */
  ptxOf(k: number): string;
}

/**
 * Writes one .cu file per distinct module source into `dir` and compiles all of them for `arch` in
 * one nvcc run (`--keep`: the PTX stays beside the cubin). Modules with the same source (a schedule
 * lowered alike for two targets) are compiled once and share the report: nvcc's output is a function
 * of the source and the architecture, and its front end costs about a CPU second per file.
 */
export async function compileCorpusForArch(nvcc: string, dir: string, modules: readonly CorpusModule[], arch: string): Promise<ArchCompilation> {
  const fileOfSource = new Map<string, string>();
  const fileOfModule = modules.map((m) => {
    const source = codegenCuda(m.module).source;
    const known = fileOfSource.get(source);
    if (known !== undefined) return known;
    if ([...fileOfSource.values()].includes(m.file)) throw new Error(`compileCorpusForArch: two modules with different sources are both named ${m.file}`);
    fileOfSource.set(source, m.file);
    writeFileSync(join(dir, m.file), source);
    return m.file;
  });
  const files = [...fileOfSource.values()];
  const started = performance.now();
  // An architecture-specific target (sm_90a) in the -gencode form, which newer nvcc versions need for it.
  const archFlag = /^sm_\d+a$/.test(arch) ? `-gencode=arch=compute_${arch.slice(3)},code=${arch}` : `-arch=${arch}`;
  const r = await execa(nvcc, [archFlag, "-cubin", "--keep", "-Xptxas", "-v", ...files], {
    cwd: dir,
    reject: false,
    all: true,
    timeout: 600_000,
  });
  const log = String(r.all ?? "");
  const perFile = parsePtxasLogPerFile(log);
  // Read now: a later run in the same folder (another architecture) writes the same names. A failed
  // run may have left some files without PTX.
  const ptxOfFile = new Map<string, string>();
  for (const file of files) {
    const ptx = join(dir, `${file.replace(/\.cu$/, "")}.ptx`);
    if (existsSync(ptx)) ptxOfFile.set(file, readFileSync(ptx, "utf8"));
  }
  return {
    arch,
    exitCode: r.exitCode ?? -1,
    log,
    wallMs: performance.now() - started,
    distinctSources: files.length,
    ptxasSections: perFile.length,
    perModule: fileOfModule.map((file) => perFile[files.indexOf(file)] ?? []),
    ptxOf: (k) => {
      const file = fileOfModule[k];
      const ptx = file === undefined ? undefined : ptxOfFile.get(file);
      if (ptx === undefined) throw new Error(`compileCorpusForArch(${arch}): no PTX for module ${k} (${modules[k]?.label ?? "out of range"})`);
      return ptx;
    },
  };
}

/**
 * One compilation of `modules` per architecture, each in its own folder under `dir`, started by
 * whichever test asks first and shared by the others (several tests read one run's report and PTX).
 */
export function compilationsPerArch(nvcc: string, dir: string, modules: readonly CorpusModule[]): (arch: string) => Promise<ArchCompilation> {
  const runs = new Map<string, Promise<ArchCompilation>>();
  return (arch) => {
    let run = runs.get(arch);
    if (run === undefined) {
      const archDir = join(dir, arch);
      mkdirSync(archDir, { recursive: true });
      run = compileCorpusForArch(nvcc, archDir, modules, arch);
      runs.set(arch, run);
    }
    return run;
  };
}

/** Whether `nvcc --version` runs. */
export async function nvccAvailable(nvcc: string): Promise<boolean> {
  return execa(nvcc, ["--version"], { reject: false }).then(
    (r) => r.exitCode === 0,
    () => false,
  );
}
