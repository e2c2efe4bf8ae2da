/** The warp-specialised bulk-copy pipeline of mbarrier.test.ts and mbarrier-nvcc.test.ts, as a one-kernel module. */
import { type BulkCopyPipelineOptions, loweredBulkCopyScript } from "@tessera/corpus";
import type { LoweredModule } from "../../src/lowered.js";
import { moduleFromScript } from "./lowered-kernel.js";

export function bulkCopyModule(opts: BulkCopyPipelineOptions = {}, targetName = "nvidia/h100"): LoweredModule {
  return moduleFromScript(loweredBulkCopyScript(opts), targetName);
}
