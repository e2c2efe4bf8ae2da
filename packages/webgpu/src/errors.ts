import { TesseraError } from "@tessera/ir";

/** A WebGPU runtime failure: a bad argument, a limit of the device, a shader the device refused. */
export class WebGpuRuntimeError extends TesseraError {
  override readonly name = "WebGpuRuntimeError";
}
