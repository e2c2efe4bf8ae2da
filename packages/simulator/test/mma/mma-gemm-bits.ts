/** Test support: a lowered mma GEMM simulated beside the executor on the unscheduled function. */
import type { LoweredModule } from "@tessera/codegen";
import { mmaGemm } from "@tessera/corpus";
import { type BitComparison, differingGemmBits } from "../tensor-core-bits.js";

/** Elements whose bits differ between the executor's C and the simulator's, on seeded inputs. */
export function differingBits(module: LoweredModule, n: number, seed: number): BitComparison {
  return differingGemmBits(mmaGemm(n), module, seed);
}
