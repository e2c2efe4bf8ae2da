/**
 * A builder (TVM's `Builder`): lowers and compiles a batch of candidates, in parallel where it can.
 * A candidate that fails to lower or compile gets an error result; the batch goes on.
 */
import type { KernelParam, LaunchMetadata, LoweredModule } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import type { TuneTarget } from "../tune-context.js";

export interface BuilderInput {
  /** The scheduled function (the candidate's `sch.func`). */
  readonly func: PrimFunc;
  readonly target: TuneTarget;
}

/**
 * What a runner needs to run a candidate: its CUDA source, kernels and (on a GPU) compiled image;
 * or, for the CPU target, its C source and the shared library compiled from it (`host`).
 */
export interface BuiltArtifact {
  readonly name: string;
  /** The generated CUDA C (the C, for the CPU target). */
  readonly source: string;
  /** Launch metadata of each kernel, in launch order. */
  readonly kernels: readonly LaunchMetadata[];
  /** The compiled CUBIN, when the builder compiled for a device. */
  readonly image?: Uint8Array;
  /** Architecture the image is for (`sm_90`). */
  readonly arch?: string;
  /** The architecture-specific target the source needs (`sm_90a` for wgmma; codegen's CudaModule.requiredArch). */
  readonly requiredArch?: string;
  /** The lowered module, for in-process runners (the simulated runner); absent across processes. */
  readonly lowered?: LoweredModule;
  /** How the host binds the kernels' arguments; what a runner in another process needs besides the image. */
  readonly hostPlan?: HostPlan;
  /** The CPU target's compiled library (CpuBuilder): what the runner's child loads with dlopen. */
  readonly host?: HostLibraryArtifact;
}

/** A candidate compiled for the CPU target: a shared library exporting `packedSymbol(void** args)`, one pointer per parameter. */
export interface HostLibraryArtifact {
  readonly libraryPath: string;
  /** The generated C on disk (beside the library in the compile cache). */
  readonly sourcePath: string;
  readonly packedSymbol: string;
  /** The function freeing the calling thread's heap workspaces (kept between calls), when it has any. */
  readonly releaseSymbol?: string;
  /** The parameters in order: buffers (dtype, elements) or scalars. */
  readonly params: readonly { readonly kind: "buffer" | "scalar"; readonly name: string; readonly dtype: string; readonly elements?: number }[];
}

export type BuilderResult =
  | { readonly ok: true; readonly artifact: BuiltArtifact; readonly buildMs: number }
  | { readonly ok: false; readonly error: string; readonly buildMs: number };

export interface Builder {
  readonly name: string;
  build(inputs: readonly BuilderInput[]): Promise<BuilderResult[]>;
  /** Frees workers (idempotent). */
  dispose?(): Promise<void>;
}

/**
 * Where the host takes a kernel's argument from (the lowered module's `ArgumentSource`, or a scalar
 * parameter); a buffer loaded with TMA also names its tensor map, which the host encodes for the
 * array and passes after its pointer.
 */
export type HostArgument =
  | { readonly kind: "param"; readonly index: number; readonly tensorMap?: KernelParam["tensorMap"] }
  | { readonly kind: "workspace"; readonly index: number; readonly tensorMap?: KernelParam["tensorMap"] }
  | { readonly kind: "scalar"; readonly name: string };

/**
 * What the host does to run the kernels, in a form that crosses processes (the lowered module
 * does not): the global buffers it allocates besides the arguments, and what each parameter of
 * each kernel (launch order) is bound to.
 */
export interface HostPlan {
  readonly workspaces: readonly { readonly name: string; readonly dtype: string; readonly elements: number }[];
  readonly kernelArguments: readonly (readonly HostArgument[])[];
}
