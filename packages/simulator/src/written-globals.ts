/**
 * The global buffers a kernel writes: the only global memory the race detector tracks. A buffer
 * no thread stores to cannot race (any number of threads may read it at once), so the inputs a
 * kernel reads in its inner loops cost nothing to check.
 */
import { type Var, forEachStmt } from "@tessera/ir";
import type { DeviceKernel } from "@tessera/codegen";

/** The storage variables of the kernel's buffer parameters that some `BufferStore` writes. */
export function writtenGlobals(kernel: DeviceKernel): Set<Var> {
  const params = new Set<Var>(kernel.params.flatMap((p) => (p.kind === "buffer" ? [p.buffer.data] : [])));
  const written = new Set<Var>();
  forEachStmt(kernel.body, (s) => {
    if (s.kind === "BufferStore" && params.has(s.buffer.data)) written.add(s.buffer.data);
  });
  return written;
}
