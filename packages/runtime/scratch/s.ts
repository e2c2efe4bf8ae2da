import { codegenCuda, lower } from "@tessera/codegen";
import { SMALL_MMA_PARAMS, mmaGemmSchedule } from "@tessera/corpus";
const m = lower(mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, padShared: false, swizzle: true }), "nvidia/a100");
const src = codegenCuda(m);
console.log((typeof src === "string" ? src : (src as { source: string }).source).split("\n").filter((l) => /shared\[|ldmatrix|\^/.test(l)).slice(0, 12).join("\n"));
