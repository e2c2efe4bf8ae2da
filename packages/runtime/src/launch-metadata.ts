/**
 * Kernel-launch metadata is defined by the code generator (@tessera/codegen), which records it for
 * every kernel it emits; the runtime validates and consumes the same records.
 */
export {
  LaunchMetadataSchema,
  KernelParamSchema,
  Dim3Schema,
  parseLaunchMetadata,
  type LaunchMetadata,
  type KernelParam,
  type Dim3,
} from "@tessera/codegen";
