/**
 * The result of lowering. For a CUDA target: device kernels in flat, block-free TensorIR, plus
 * what the host does (which kernels to launch in which order, with which buffers). This is the
 * contract between the lowering pipeline, the CUDA code generator, the GPU simulator and the
 * runtime. For a C target: one flat function (`CLoweredFunc`).
 *
 * Device code conventions (see docs/architecture/lowering.md):
 * - No blocks. Every buffer is one-dimensional (`shape = [elements]`), accessed with one index.
 * - Launch dimensions are `AttrStmt("thread_extent", v, extent)` where `v` is a variable named by
 *   its tag (`blockIdx.x`, `threadIdx.y`, …). The same tag always uses the same variable in one
 *   kernel, may appear at several places, and always has the same constant extent. Every thread
 *   runs the whole body; an attribute only says where its variable is in scope.
 * - `shared` and `local` storage is an `Allocate` of a flat buffer; `shared` is per thread block,
 *   `local` is per thread. Barriers are `Evaluate(T.tvm_storage_sync("shared"))`.
 * - Vector accesses use `Ramp(base, 1, lanes)` indices and `Broadcast` values (float32x4, …).
 * - Loops of kind `unrolled` that were not expanded print as `#pragma unroll`.
 * - A kernel's `__launch_bounds__` minimum of blocks per SM is `launch.minBlocksPerSM`; the
 *   attributes it came from are no longer in the body. Other attributes print nothing.
 */
import type { Buffer, DType, PrimFunc, Stmt, TensorMapSpec, Var } from "@tessera/ir";
import type { LaunchMetadata } from "./launch-metadata.js";
import type { CTarget } from "./targets/c.js";
import type { CudaTarget } from "./targets/cuda.js";
import type { GpuSourceTarget, GpuTarget } from "./targets/target.js";

/** Where a kernel's buffer argument comes from on the host side. */
export type ArgumentSource =
  /** The `index`-th parameter of the original function. */
  | { readonly kind: "param"; readonly index: number }
  /** The `index`-th workspace (a global intermediate the host allocates). */
  | { readonly kind: "workspace"; readonly index: number };

export interface DeviceBufferParam {
  readonly kind: "buffer";
  /** The parameter's name in the kernel's signature (the original buffer's name). */
  readonly name: string;
  /** The flat buffer the body accesses; its `data` variable is the pointer parameter. */
  readonly buffer: Buffer;
  readonly source: ArgumentSource;
  /**
   * Present when the kernel loads the buffer with TMA (`T.ptx.cp_async_bulk_tensor_2d`): the
   * kernel then also takes the buffer's tensor map (a `__grid_constant__ CUtensorMap` after the
   * pointer), which the host encodes from this.
   */
  readonly tensorMap?: TensorMapSpec;
}

export interface DeviceScalarParam {
  readonly kind: "scalar";
  readonly name: string;
  readonly var: Var;
  readonly dtype: DType;
}

export type DeviceKernelParam = DeviceBufferParam | DeviceScalarParam;

export interface DeviceKernel {
  /** `<function>_kernel`, or `<function>_kernel_<i>` when a function has several kernels. */
  readonly name: string;
  readonly params: readonly DeviceKernelParam[];
  /** Device code; launch dimensions are `thread_extent` attributes inside it. */
  readonly body: Stmt;
  /** Grid, block, dynamic shared memory and parameter list, as the runtime consumes them. */
  readonly launch: LaunchMetadata;
  /** Static shared memory the kernel allocates, in bytes. */
  readonly sharedBytes: number;
}

/** A global buffer that is neither a parameter nor per-block: allocated by the host for one call. */
export interface Workspace {
  readonly name: string;
  readonly dtype: DType;
  readonly elements: number;
}

/** The IR after one pass of the pipeline (for docs, `--emit stages` and debugging). */
export interface PassStage {
  readonly pass: string;
  readonly func: PrimFunc;
}

/** The result of lowering for a GPU target (CUDA by default; WebGPU and Metal lower the same way). */
export interface LoweredModule<T extends GpuTarget = CudaTarget> {
  /** The function's global symbol (e.g. `gemm_relu_add`). */
  readonly name: string;
  readonly target: T;
  /** The scheduled function that was lowered; its parameters are the module's arguments. */
  readonly source: PrimFunc;
  readonly workspaces: readonly Workspace[];
  /** Kernels in launch order. */
  readonly kernels: readonly DeviceKernel[];
  /** The IR after each pass, when lowering was asked to record it. */
  readonly stages: readonly PassStage[];
}

/**
 * The result of lowering for a C target: one flat, block-free function with its loop kinds kept
 * (parallel, vectorized, unrolled). There is no host/device split: it all runs on the host.
 */
export interface CLoweredFunc {
  /** The function's global symbol (also the C function's name). */
  readonly name: string;
  readonly target: CTarget;
  /** The scheduled function; its parameters are the C function's parameters. */
  readonly source: PrimFunc;
  /** Flat, block-free TensorIR. */
  readonly func: PrimFunc;
  readonly stages: readonly PassStage[];
}

/** What `lower` returns, by target kind. */
export type Lowered = LoweredModule | LoweredModule<GpuSourceTarget> | CLoweredFunc;
