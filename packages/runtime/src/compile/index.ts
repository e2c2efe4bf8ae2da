/**
 * compileCuda: CUDA C++ → CUBIN or PTX, through NVRTC (in the addon, on the libuv thread pool,
 * so many candidates compile in parallel) or by running nvcc; cached on disk.
 */
import { performance } from "node:perf_hooks";
import { cuda } from "../device.js";
import { CompileError, CudaUnavailableError } from "../errors.js";
import { loadNative } from "../native.js";
import { parseArch } from "./arch.js";
import { CompileCache, cacheKey, defaultCacheDir } from "./cache.js";
import { nvccVersion, runNvcc } from "./nvcc.js";
import { parsePtxasVerbose, type PtxasReport } from "./ptxas.js";
import { halfHeaderOptions } from "./half-headers.js";

export type CompileBackend = "nvrtc" | "nvcc";

export interface CompileOptions {
  /** "sm_90", "compute_75", 90, [9, 0]; default: device 0's architecture. */
  arch?: string | number | readonly [number, number];
  /** Default "cubin". PTX is for a virtual target (compute_XX), loadable by any newer driver. */
  output?: "cubin" | "ptx";
  /** Default "auto": NVRTC where it loads, else nvcc. */
  backend?: CompileBackend | "auto";
  /** Ask ptxas for its resource report and parse it into `ptxas` (CUBIN only). */
  ptxasVerbose?: boolean;
  /** Extra compiler options, e.g. ["-lineinfo", "--use_fast_math"]. */
  options?: readonly string[];
  /** Program name for NVRTC diagnostics. */
  name?: string;
  /** true (default; disabled by TESSERA_CACHE=0), false, or a cache directory. */
  cache?: boolean | string;
}

export interface CompiledCuda {
  image: Uint8Array;
  output: "cubin" | "ptx";
  /** The target compiled for: sm_XX for CUBIN, compute_XX for PTX. */
  target: string;
  backend: CompileBackend;
  compilerVersion: string;
  /** The compiler's log (warnings; ptxas -v output when asked). */
  log: string;
  ptxas?: PtxasReport;
  cacheKey: string;
  cacheHit: boolean;
  /** Wall time of this call in ms (small on a cache hit). */
  compileMs: number;
}

interface BackendStatus {
  ok: boolean;
  version?: string;
  reason?: string;
}

let nvrtcStatusCache: BackendStatus | undefined;

export function nvrtcStatus(): BackendStatus {
  if (nvrtcStatusCache !== undefined) return nvrtcStatusCache;
  const load = loadNative();
  if (!load.ok) nvrtcStatusCache = { ok: false, reason: load.reason };
  else {
    const p = load.addon.probeNvrtc();
    nvrtcStatusCache = p.ok ? { ok: true, version: `nvrtc ${p.major ?? "?"}.${p.minor ?? "?"} (${p.library})` } : { ok: false, reason: p.reason };
  }
  return nvrtcStatusCache;
}

export async function nvccStatus(): Promise<BackendStatus> {
  const v = await nvccVersion();
  return v === undefined ? { ok: false, reason: "nvcc not found on PATH (set TESSERA_NVCC)" } : { ok: true, version: `nvcc ${v}` };
}

async function pickBackend(wanted: CompileBackend | "auto"): Promise<{ backend: CompileBackend; version: string }> {
  if (wanted === "nvrtc" || wanted === "auto") {
    const s = nvrtcStatus();
    if (s.ok) return { backend: "nvrtc", version: s.version as string };
    if (wanted === "nvrtc") throw new CudaUnavailableError("compileCuda(backend: nvrtc)", s.reason ?? "NVRTC unavailable");
    const n = await nvccStatus();
    if (n.ok) return { backend: "nvcc", version: n.version as string };
    throw new CudaUnavailableError("compileCuda", `no CUDA compiler: ${s.reason}; ${n.reason}`);
  }
  const n = await nvccStatus();
  if (!n.ok) throw new CudaUnavailableError("compileCuda(backend: nvcc)", n.reason ?? "nvcc not found");
  return { backend: "nvcc", version: n.version as string };
}

function defaultArch(): string {
  if (!cuda.available()) throw new CudaUnavailableError("compileCuda (no arch given, so it is taken from device 0)", cuda.unavailableReason() ?? "");
  return cuda.device(0).arch;
}

/** The options that are handed to the compiler (and hashed into the cache key). */
export function compilerArgs(backend: CompileBackend, target: string, opts: CompileOptions): string[] {
  const out = opts.output ?? "cubin";
  const args: string[] = [];
  if (backend === "nvrtc") {
    args.push(`--gpu-architecture=${target}`);
    if (opts.ptxasVerbose === true && out === "cubin") args.push("--ptxas-options=-v");
  } else if (/^sm_\d+a$/.test(target) && out === "cubin") {
    // An architecture-specific target (sm_90a: wgmma): the -gencode form, as -arch=sm_90a may also run a plain sm_90 pass that rejects its instructions.
    const n = target.slice(3);
    args.push(`-gencode=arch=compute_${n},code=sm_${n}`);
    if (opts.ptxasVerbose === true) args.push("-Xptxas", "-v");
  } else {
    args.push(`-arch=${target}`);
    if (opts.ptxasVerbose === true && out === "cubin") args.push("-Xptxas", "-v");
  }
  args.push(...(opts.options ?? []));
  return args;
}

function cacheDir(opt: boolean | string | undefined): string | undefined {
  if (opt === false) return undefined;
  if (typeof opt === "string") return opt;
  if (process.env.TESSERA_CACHE === "0") return undefined;
  return defaultCacheDir();
}

/** Compiles CUDA C++ to CUBIN (default) or PTX. Throws CompileError with the log on failure. */
export async function compileCuda(source: string, opts: CompileOptions = {}): Promise<CompiledCuda> {
  const t0 = performance.now();
  const output = opts.output ?? "cubin";
  const arch = parseArch(opts.arch ?? defaultArch());
  const target = output === "cubin" ? arch.sm : arch.compute;
  const { backend, version } = await pickBackend(opts.backend ?? "auto");
  const args = [...compilerArgs(backend, target, opts), ...(backend === "nvrtc" ? halfHeaderOptions(source) : [])];
  const key = cacheKey({ backend, compilerVersion: version, source, options: args, output });
  const dir = cacheDir(opts.cache);
  const cache = dir === undefined ? undefined : new CompileCache(dir);
  const finish = (image: Uint8Array, log: string, hit: boolean): CompiledCuda => {
    const r: CompiledCuda = {
      image,
      output,
      target,
      backend,
      compilerVersion: version,
      log,
      cacheKey: key,
      cacheHit: hit,
      compileMs: performance.now() - t0,
    };
    if (opts.ptxasVerbose === true && output === "cubin") r.ptxas = parsePtxasVerbose(log);
    return r;
  };
  if (cache !== undefined) {
    const hit = await cache.get(key);
    if (hit !== undefined) return finish(hit.image, hit.log, true);
  }
  let image: Uint8Array;
  let log: string;
  if (backend === "nvrtc") {
    const load = loadNative();
    if (!load.ok) throw new CudaUnavailableError("compileCuda", load.reason);
    const addon = load.addon;
    const r = await addon.nvrtcCompile(source, opts.name ?? "tessera_kernel.cu", args, output);
    if (!r.ok || r.image === undefined)
      throw new CompileError(`NVRTC failed to compile ${opts.name ?? "the kernel"} for ${target}: ${r.status}`, "nvrtc", r.log);
    image = new Uint8Array(r.image.buffer, r.image.byteOffset, r.image.byteLength);
    log = r.log;
  } else {
    const r = await runNvcc(source, args, output);
    if (!r.ok || r.image === undefined)
      throw new CompileError(`nvcc failed to compile ${opts.name ?? "the kernel"} for ${target} (${r.command.join(" ")})`, "nvcc", r.log);
    image = r.image;
    log = r.log;
  }
  if (cache !== undefined) await cache.put(key, { image, log });
  return finish(image, log, false);
}

/** PTX image as text. */
export function ptxText(c: CompiledCuda): string {
  return new TextDecoder().decode(c.image);
}

export { parseArch, type Arch } from "./arch.js";
export { CompileCache, cacheKey, defaultCacheDir, type CacheKeyInput } from "./cache.js";
export { parsePtxasVerbose, type PtxasFunctionInfo, type PtxasReport } from "./ptxas.js";
export { nvccVersion } from "./nvcc.js";
