/** Test support: the WMMA GEMM simulated beside the executor on the unscheduled function. */
import { lower } from "@tessera/codegen";
import { type WmmaGemmParams, wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import { type BitComparison, differingGemmBits } from "../tensor-core-bits.js";

/** Elements whose bits differ between the executor's C and the simulator's, on seeded inputs. */
export function differingBits(n: number, seed: number, params?: WmmaGemmParams): BitComparison {
  return differingGemmBits(wmmaGemm(n), lower(wmmaGemmSchedule(n, params), "nvidia/a100"), seed);
}
