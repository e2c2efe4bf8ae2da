import { WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmReluAddSchedule } from "@tessera/corpus";
import { lower } from "@tessera/codegen";
import { codegenCuda } from "../../codegen/src/cuda/index.js";
const n = Number(process.argv[2] ?? 2048);
const p = JSON.parse(process.argv[3] ?? "{}");
const m = lower(wgmmaTf32x3GemmReluAddSchedule(n, { ...WGMMA_TF32X3_PARAMS, ...p }), "nvidia/h100");
console.log(codegenCuda(m).source);
