/**
 * The device half of a build: the generated CUDA C compiled to an image (NVRTC on the libuv
 * thread pool, or nvcc), through the runtime's on-disk compile cache; identical sources of one
 * builder compile once.
 */
import { createHash } from "node:crypto";
import type { CudaTarget } from "@tessera/codegen";
import { type CompileBackend, compileCuda, compileTargetFor, cuda } from "@tessera/runtime";

/** How a builder compiles: for the local GPU, with nvcc for the target's architecture (no GPU needed), or not at all. */
export type CompileMode = "device" | "nvcc" | "none";

export interface CompiledImage {
  readonly image: Uint8Array;
  readonly arch: string;
}

export interface CompileStepOptions {
  readonly mode: CompileMode;
  /** A cache directory, or false for none; default the runtime's (`TESSERA_CACHE_DIR`). */
  readonly cacheDir?: string | false;
  readonly deviceOrdinal?: number;
}

/** `auto`: the local GPU where CUDA is available, else no compilation. */
export function resolveCompileMode(mode: CompileMode | "auto"): CompileMode {
  return mode === "auto" ? (cuda.available() ? "device" : "none") : mode;
}

export class CompileStep {
  readonly #inFlight = new Map<string, Promise<CompiledImage>>();

  constructor(readonly opts: CompileStepOptions) {}

  /**
   * The image of `source` for `target` (for `requiredArch` when the source needs an
   * architecture-specific target, e.g. sm_90a for wgmma), or undefined when this step does not compile.
   */
  compile(source: string, target: CudaTarget, name: string, requiredArch?: string): Promise<CompiledImage> | undefined {
    const { mode } = this.opts;
    if (mode === "none") return undefined;
    const where =
      mode === "device"
        ? compileTargetFor(target, cuda.device(this.opts.deviceOrdinal ?? 0), requiredArch)
        : { arch: requiredArch ?? target.arch, output: "cubin" as const };
    const backend: CompileBackend | "auto" = mode === "nvcc" ? "nvcc" : "auto";
    const key = createHash("sha256").update(`${backend}\0${where.arch}\0${where.output}\0`).update(source).digest("hex");
    const known = this.#inFlight.get(key);
    if (known !== undefined) return known;
    const compiling: Promise<CompiledImage> = compileCuda(source, {
      arch: where.arch,
      output: where.output,
      backend,
      cache: this.opts.cacheDir ?? true,
      name: `${name}.cu`,
    }).then((c) => ({ image: c.image, arch: c.target }));
    // A failed compile may succeed later (e.g. after a transient error): forget it.
    compiling.catch(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, compiling);
    return compiling;
  }
}
