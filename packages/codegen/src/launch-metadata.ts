/**
 * Kernel-launch metadata: what the code generator records for each kernel it emits, and what
 * the runtime needs to launch it (grid, block, dynamic shared memory, parameter order and kinds).
 */
import { z } from "zod";

/** Element and scalar types a kernel parameter may have (TVM's spelling). */
export const KERNEL_PARAM_DTYPES = [
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float16",
  "bfloat16",
  "float32",
  "float64",
] as const;

const dim = z.number().int().min(1);

export const Dim3Schema = z.tuple([dim, dim, dim]);

const extent = z.number().int().min(1);

/** What the host encodes into a tensor map (ir's TensorMapSpec, less the buffer's name). */
export const TensorMapParamSchema = z.object({
  /** Global extents, outermost first: [rows, columns]. */
  shape: z.tuple([extent, extent]),
  /** Row stride in elements. */
  rowStride: extent,
  /** The box, outermost first: [rows, columns]. */
  box: z.tuple([extent, extent]),
  /** Swizzle span in bytes (0: none). */
  swizzle: z.union([z.literal(0), z.literal(32), z.literal(64), z.literal(128)]),
});

export const KernelParamSchema = z.object({
  name: z.string().min(1),
  /**
   * "buffer": a device pointer (an NDArray); "scalar": a value of `dtype` passed by value;
   * "tensor_map": a CUtensorMap (128 bytes, by value) of the buffer parameter just before it,
   * encoded by the host from `tensorMap`.
   */
  kind: z.enum(["buffer", "scalar", "tensor_map"]),
  /** Element type for buffers and tensor maps, value type for scalars. */
  dtype: z.enum(KERNEL_PARAM_DTYPES),
  tensorMap: TensorMapParamSchema.optional(),
});

export const LaunchMetadataSchema = z
  .object({
    /** The kernel's (extern "C") symbol name. */
    name: z.string().min(1),
    grid: Dim3Schema,
    block: Dim3Schema,
    dynamicSharedBytes: z.number().int().min(0),
    params: z.array(KernelParamSchema),
    /**
     * The kernel's `__launch_bounds__(threads, minBlocksPerSM)` second operand: the minimum of
     * resident blocks per SM the compiler must allow for (limits registers per thread). Absent:
     * `__launch_bounds__(threads)`.
     */
    minBlocksPerSM: z.number().int().min(1).optional(),
  })
  .refine((m) => m.block[0] * m.block[1] * m.block[2] <= 1024, {
    message: "a block has at most 1024 threads",
    path: ["block"],
  });

export type Dim3 = z.infer<typeof Dim3Schema>;
export type KernelParam = z.infer<typeof KernelParamSchema>;
export type LaunchMetadata = z.infer<typeof LaunchMetadataSchema>;

/** Validates untrusted metadata (e.g. read from JSON); throws a ZodError listing every problem. */
export function parseLaunchMetadata(input: unknown): LaunchMetadata {
  return LaunchMetadataSchema.parse(input);
}
