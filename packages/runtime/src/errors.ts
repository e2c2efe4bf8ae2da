/** Errors thrown by @tessera/runtime. */

/** A call that needs a GPU was made where CUDA is unavailable (no driver, no device, no addon). */
export class CudaUnavailableError extends Error {
  override readonly name = "CudaUnavailableError";
  constructor(
    /** The API that was called, e.g. `NDArray.empty`. */
    readonly call: string,
    /** Why CUDA is unavailable (the same text as `cuda.unavailableReason()`). */
    readonly reason: string,
  ) {
    super(`${call}: CUDA is unavailable: ${reason}`);
  }
}

/** A CUDA driver call failed. `code` is the driver's name for the error, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`. */
export class CudaError extends Error {
  override readonly name = "CudaError";
  constructor(
    message: string,
    readonly code: string,
    /** The driver call that reported it, e.g. `cuLaunchKernel` or `cuCtxSynchronize`. */
    readonly cudaCall: string,
    /** The kernel being launched, or for asynchronous errors the kernel launched last. */
    readonly kernel: string | undefined,
    /** The numeric CUresult. */
    readonly result: number,
  ) {
    super(message);
  }
}

/** A CUDA C++ source did not compile; `log` holds the compiler's output. */
export class CompileError extends Error {
  override readonly name = "CompileError";
  constructor(
    message: string,
    readonly backend: "nvrtc" | "nvcc",
    readonly log: string,
  ) {
    super(log.trim().length > 0 ? `${message}\n${log.trim()}` : message);
  }
}

interface NativeErrorShape {
  message: string;
  code?: unknown;
  cudaCall?: unknown;
  kernel?: unknown;
  result?: unknown;
}

function isNativeCudaError(e: unknown): e is Error & NativeErrorShape {
  return e instanceof Error && typeof (e as NativeErrorShape).code === "string" && typeof (e as NativeErrorShape).cudaCall === "string";
}

/** Converts the addon's plain errors (with `code` and `cudaCall`) into `CudaError`s. */
export function translateNativeError(e: unknown): unknown {
  if (isNativeCudaError(e)) {
    return new CudaError(
      e.message,
      e.code as string,
      e.cudaCall as string,
      typeof e.kernel === "string" ? e.kernel : undefined,
      typeof e.result === "number" ? e.result : -1,
    );
  }
  return e;
}

/** Runs `fn`, rethrowing addon errors as `CudaError`. */
export function native<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw translateNativeError(e);
  }
}
