/**
 * Which thread block and which thread store each element of the output, from the simulator's
 * store coverage (only the index arithmetic of the stores runs, so a 256³ kernel takes a moment).
 */
import type { LoweredModule } from "@tessera/codegen";
import { moduleStoreCoverage } from "@tessera/simulator";
import { NO_WRITER, SEVERAL_WRITERS, type Tiling } from "../protocol.js";

const SEVERAL = 2 ** 32 - 1;

/** The tiling of the module's output: its last buffer parameter. */
export function outputTiling(module: LoweredModule): Tiling {
  const params = module.source.params;
  const index = params.map((p) => module.source.bufferMap.has(p)).lastIndexOf(true);
  const output = index < 0 ? undefined : module.source.bufferMap.get(params[index]!);
  if (output === undefined) throw new Error(`${module.name} has no buffer parameter`);
  const result = moduleStoreCoverage(module, index);
  if (!result.supported) throw new Error(`cannot tell which threads write ${output.name}: ${result.why}`);
  const { writers, grid, block } = result.coverage;
  const perBlock = block[0] * block[1] * block[2];
  const blockOf = new Int32Array(writers.length);
  const threadOf = new Int32Array(writers.length);
  writers.forEach((w, e) => {
    const none = w === 0 ? NO_WRITER : w === SEVERAL ? SEVERAL_WRITERS : undefined;
    blockOf[e] = none ?? Math.floor((w - 1) / perBlock);
    threadOf[e] = none ?? (w - 1) % perBlock;
  });
  const shape = output.shape.map((d) => (d.kind === "IntImm" ? d.value : Number.NaN));
  return { buffer: output.name, shape, grid, block, blockOf, threadOf };
}
