import { WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmReluAddSchedule } from "@tessera/corpus";
import { lower } from "@tessera/codegen";
import { printTVMScript } from "@tessera/ir";
const m = lower(wgmmaTf32x3GemmReluAddSchedule(256, WGMMA_TF32X3_PARAMS), "nvidia/h100", { recordStages: true });
const s = (m.stages as any[]).find((x) => x.pass === "injectPTXAsyncCopy");
console.log(printTVMScript(s.func));
