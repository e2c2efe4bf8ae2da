/**
 * The codegen target of the local GPU (device 0), as meta-schedule's builder, cost model and GPU
 * checks need it; undefined without CUDA.
 */
import type { CudaTarget } from "@tessera/codegen";
import { cuda, deviceTarget } from "@tessera/runtime";

export function localDeviceTarget(): CudaTarget | undefined {
  return cuda.available() ? deviceTarget(cuda.device(0)) : undefined;
}
