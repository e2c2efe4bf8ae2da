/**
 * The lowered CUDA corpus and its `nvcc -cubin -Xptxas -v` resource report, shared by
 * corpus-nvcc.test.ts and scripts/ptxas-report.ts: which modules (the schedule corpus and the
 * 2048³ naive/manual gemm+ReLU+add, the manual one also with unroll pragmas and
 * `__launch_bounds__(256, 2)`, a three-stage software pipeline of it, and the fast schedule; each
 * lowered for the T4 and the H100), one nvcc invocation per architecture and group of distinct
 * module sources (one translation unit per group: nvcc-batch.ts), and a parser of the ptxas log
 * that attributes every kernel to its file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { annotateKernel, fastSchedule, manualSchedule, naiveSchedule, pipelinedGemmSchedule, scheduleCorpus } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import { execa } from "execa";
import { codegenCuda } from "../../src/cuda/index.js";
import type { LoweredModule } from "../../src/lowered.js";
import { lower } from "../../src/lower/pipeline.js";
import { type BatchMember, attributeBatchKernels, batchPtxOf, batchTranslationUnit, includeLinesOf } from "./nvcc-batch.js";

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
  /** How many translation units nvcc compiled them as (one per group of sources with the same `#include` lines: nvcc-batch.ts). */
  readonly translationUnits: number;
  /** Entry functions in the ptxas log that no module claims (none when all is well). */
  readonly unattributedKernels: readonly string[];
  /** The entry functions of `modules[k]`, as ptxas reported them. */
  readonly perModule: readonly PtxasKernelRecord[][];
  /** The PTX nvcc generated for `modules[k]` on its way to the cubin (kept from the same run: no second `-ptx` run). */
  ptxOf(k: number): string;
  /** The exit code and log of the nvcc run that compiled `modules[k]` (its translation unit, or its file alone). */
  runOf(k: number): { readonly exitCode: number; readonly log: string };
}

/** One nvcc run's outcome for a list of files: its log, the ptxas records and PTX of each file. */
export interface FilesCompilation {
  readonly exitCode: number;
  readonly log: string;
  readonly unattributed: readonly string[];
  readonly perFile: readonly PtxasKernelRecord[][];
  readonly ptxOfFile: readonly (string | undefined)[];
}

/**
 * Writes one .cu file per distinct module source into `dir` and compiles them for `arch` with
 * `nvcc -cubin --keep -Xptxas -v` (the PTX stays beside the cubin). Modules with the same source (a
 * schedule lowered alike for two targets) are compiled once and share the report: nvcc's output is
 * a function of the source and the architecture. Sources with the same `#include` lines compile as
 * one translation unit (nvcc-batch.ts: nvcc's front end costs about 0.9 CPU s per unit, most of a
 * small kernel's compile); when such a unit fails, its files are compiled again, each as its own
 * unit in one nvcc run, so that the log and the exit code are those of the files themselves.
 */
export async function compileCorpusForArch(nvcc: string, dir: string, modules: readonly CorpusModule[], arch: string): Promise<ArchCompilation> {
  const fileOfSource = new Map<string, string>();
  const kernelsOfFile = new Map<string, readonly string[]>();
  const fileOfModule = modules.map((m) => {
    const source = codegenCuda(m.module).source;
    const known = fileOfSource.get(source);
    if (known !== undefined) return known;
    if ([...fileOfSource.values()].includes(m.file)) throw new Error(`compileCorpusForArch: two modules with different sources are both named ${m.file}`);
    if (/^tessera_batch_\d+\.cu$/.test(m.file)) throw new Error(`compileCorpusForArch: ${m.file} is the name of a batch's translation unit`);
    fileOfSource.set(source, m.file);
    kernelsOfFile.set(
      m.file,
      m.module.kernels.map((k) => k.name),
    );
    writeFileSync(join(dir, m.file), source);
    return m.file;
  });
  const groups = new Map<string, BatchMember[]>();
  for (const [source, file] of fileOfSource) {
    const key = includeLinesOf(source).join("\n");
    groups.set(key, [...(groups.get(key) ?? []), { file, source, kernels: kernelsOfFile.get(file)! }]);
  }
  const started = performance.now();
  const results = new Map<string, { run: FilesCompilation; index: number }>();
  const logs: string[] = [];
  const unattributed: string[] = [];
  let exitCode = 0;
  let translationUnits = 0;
  for (const [g, members] of [...groups.values()].entries()) {
    const batch = members.length > 1 ? await compileAsOneUnit(nvcc, dir, arch, members, `tessera_batch_${g}.cu`) : undefined;
    const run =
      batch?.exitCode === 0
        ? batch
        : await compileFiles(
            nvcc,
            dir,
            arch,
            members.map((m) => m.file),
          );
    translationUnits += run === batch ? 1 : members.length;
    members.forEach((m, index) => results.set(m.file, { run, index }));
    logs.push(run.log);
    unattributed.push(...run.unattributed);
    if (run.exitCode !== 0 && exitCode === 0) exitCode = run.exitCode;
  }
  return {
    arch,
    exitCode,
    log: logs.join("\n"),
    wallMs: performance.now() - started,
    distinctSources: fileOfSource.size,
    translationUnits,
    unattributedKernels: unattributed,
    perModule: fileOfModule.map((file) => {
      const r = results.get(file)!;
      return r.run.perFile[r.index] ?? [];
    }),
    ptxOf: (k) => {
      const file = fileOfModule[k];
      const r = file === undefined ? undefined : results.get(file);
      const ptx = r?.run.ptxOfFile[r.index];
      if (ptx === undefined) throw new Error(`compileCorpusForArch(${arch}): no PTX for module ${k} (${modules[k]?.label ?? "out of range"})`);
      return ptx;
    },
    runOf: (k) => {
      const file = fileOfModule[k];
      const r = file === undefined ? undefined : results.get(file);
      if (r === undefined) throw new Error(`compileCorpusForArch(${arch}): no module ${k} (out of range)`);
      return r.run;
    },
  };
}

/** `c`'s report for its modules `offset … offset + count - 1`, numbered from 0, with the exit code and log of the runs that compiled them. */
export function moduleRange(c: ArchCompilation, offset: number, count: number): ArchCompilation {
  const runs = [...new Set(Array.from({ length: count }, (_, k) => c.runOf(offset + k)))];
  return {
    ...c,
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? 0,
    log: [...new Set(runs.map((r) => r.log))].join("\n"),
    perModule: c.perModule.slice(offset, offset + count),
    ptxOf: (k) => c.ptxOf(offset + k),
    runOf: (k) => c.runOf(offset + k),
  };
}

async function runNvcc(nvcc: string, dir: string, arch: string, files: readonly string[]): Promise<{ exitCode: number; log: string }> {
  // An architecture-specific target (sm_90a) in the -gencode form, which newer nvcc versions need for it.
  const archFlag = /^sm_\d+a$/.test(arch) ? `-gencode=arch=compute_${arch.slice(3)},code=${arch}` : `-arch=${arch}`;
  const r = await execa(nvcc, [archFlag, "-cubin", "--keep", "-Xptxas", "-v", ...files], { cwd: dir, reject: false, all: true, timeout: 600_000 });
  return { exitCode: r.exitCode ?? -1, log: String(r.all ?? "") };
}

/** The PTX `--keep` left for `file` (read at once: a later run in the same folder writes the same names). */
function keptPtx(dir: string, file: string): string | undefined {
  const ptx = join(dir, `${file.replace(/\.cu$/, "")}.ptx`);
  return existsSync(ptx) ? readFileSync(ptx, "utf8") : undefined;
}

/** `files` in one nvcc run, each its own translation unit: ptxas starts each file's part of the log with its `bytes gmem` line. */
async function compileFiles(nvcc: string, dir: string, arch: string, files: readonly string[]): Promise<FilesCompilation> {
  const { exitCode, log } = await runNvcc(nvcc, dir, arch, files);
  const sections = parsePtxasLogPerFile(log);
  return {
    exitCode,
    log,
    // A section per file, or the attribution is in doubt: more sections than files leave kernels unclaimed.
    unattributed: sections.slice(files.length).flatMap((s) => s.map((k) => k.kernel)),
    perFile: files.map((_, i) => sections[i] ?? []),
    ptxOfFile: files.map((f) => keptPtx(dir, f)),
  };
}

/** `members` as one translation unit written to `dir/unit` (nvcc-batch.ts), the report and PTX split back per member. */
export async function compileAsOneUnit(nvcc: string, dir: string, arch: string, members: readonly BatchMember[], unit: string): Promise<FilesCompilation> {
  writeFileSync(join(dir, unit), batchTranslationUnit(members));
  const { exitCode, log } = await runNvcc(nvcc, dir, arch, [unit]);
  const { perMember, unattributed } = attributeBatchKernels(parsePtxasLogPerFile(log).flat(), members);
  const ptx = keptPtx(dir, unit);
  return {
    exitCode,
    log,
    unattributed,
    perFile: perMember,
    ptxOfFile: members.map((_, i) => (ptx === undefined ? undefined : batchPtxOf(ptx, i, members.length))),
  };
}

/**
 * One compilation of `modules` per architecture, each in its own folder under `dir`, started by
 * whichever test asks first and shared by the others (several tests read one run's report and PTX).
 */
export function compilationsPerArch(nvcc: string, dir: string, modules: readonly CorpusModule[]): (arch: string) => Promise<ArchCompilation> {
  return oncePerArch(dir, (arch, archDir) => compileCorpusForArch(nvcc, archDir, modules, arch));
}

/** `start(arch, folder)` run once per architecture, in a folder of its own under `dir`; later asks get the first run's value. */
function oncePerArch<T>(dir: string, start: (arch: string, archDir: string) => T): (arch: string) => T {
  const runs = new Map<string, T>();
  return (arch) => {
    let run = runs.get(arch);
    if (run === undefined) {
      const archDir = join(dir, arch);
      mkdirSync(archDir, { recursive: true });
      run = start(arch, archDir);
      runs.set(arch, run);
    }
    return run;
  };
}

/** A test file's nvcc compilations: `add` registers a group of modules with the architectures it is compiled for. */
export interface CompilationPool {
  /** Registers `modules` (at collection time, in a describe body); the result gives their report for one of `archs`. */
  add(modules: readonly CorpusModule[], archs: readonly string[]): (arch: string) => Promise<ArchCompilation>;
}

/**
 * One compilation per architecture of every module a test file registers for it, shared by the
 * file's describe blocks: their modules compile in one `compileCorpusForArch`, so that modules with
 * the same `#include` lines share a translation unit whichever block registered them (nvcc's front
 * end is paid once per unit). Each group's report is its own modules' (`moduleRange`): their
 * entries, their PTX, and the exit code and log of the units that compiled them. Every group must
 * be registered before the first compilation of its architecture starts (groups register while the
 * file is collected, before any test runs).
 */
export function compilationPool(nvcc: string, dir: string): CompilationPool {
  const groups: { modules: readonly CorpusModule[]; archs: readonly string[] }[] = [];
  const runFor = oncePerArch(dir, (arch, archDir) => {
    const members = groups.filter((g) => g.archs.includes(arch));
    return {
      groups: members,
      compilation: compileCorpusForArch(
        nvcc,
        archDir,
        members.flatMap((g) => g.modules),
        arch,
      ),
    };
  });
  return {
    add(modules, archs) {
      const group = { modules, archs };
      groups.push(group);
      return async (arch) => {
        if (!archs.includes(arch)) throw new Error(`compilationPool: ${arch} is not an architecture these modules were registered for (${archs.join(", ")})`);
        const run = runFor(arch);
        const index = run.groups.indexOf(group);
        if (index < 0) throw new Error(`compilationPool: ${modules[0]?.label ?? "a group"} was registered after ${arch}'s compilation started`);
        const offset = run.groups.slice(0, index).reduce((n, g) => n + g.modules.length, 0);
        return moduleRange(await run.compilation, offset, modules.length);
      };
    },
  };
}

/** Whether `nvcc --version` runs. */
export async function nvccAvailable(nvcc: string): Promise<boolean> {
  return execa(nvcc, ["--version"], { reject: false }).then(
    (r) => r.exitCode === 0,
    () => false,
  );
}
