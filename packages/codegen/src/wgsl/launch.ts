/**
 * What a WebGPU runtime needs to dispatch one WGSL kernel: the entry point, workgroup counts and
 * size, and the binding order (storage buffers in parameter order, then the uniform of scalars).
 */
import type { DType } from "@tessera/ir";
import type { Dim3 } from "../launch-metadata.js";
import type { ArgumentSource } from "../lowered.js";

export type WgslBinding =
  | {
      readonly binding: number;
      readonly kind: "buffer";
      /** The parameter's name. */
      readonly name: string;
      readonly dtype: DType;
      /** `read` when the kernel never stores to it. */
      readonly access: "read" | "read_write";
      readonly source: ArgumentSource;
    }
  | {
      readonly binding: number;
      readonly kind: "uniform";
      readonly name: "scalars";
      /** The scalar parameters in struct order (4 bytes each). */
      readonly members: readonly { readonly name: string; readonly dtype: DType }[];
    };

export interface WgslKernel {
  /** The entry point (`<function>_kernel`). */
  readonly name: string;
  /** A complete WGSL shader module with this one entry point. */
  readonly source: string;
  /** Workgroups to dispatch (x, y, z): the CUDA grid. */
  readonly grid: Dim3;
  /** `@workgroup_size`: the CUDA block. */
  readonly workgroupSize: Dim3;
  readonly bindings: readonly WgslBinding[];
  /** Bytes of workgroup memory. */
  readonly workgroupBytes: number;
}
