import { fastSchedule, scheduleCorpus } from "@tessera/corpus";
import { lower } from "@tessera/codegen";
import { estimateLatency } from "./src/runner/simulated/latency-model.js";
const mods = [lower(fastSchedule(2048), "nvidia/h100"), lower(scheduleCorpus()[6]!.build(), "nvidia/h100"), lower(scheduleCorpus()[4]!.build(), "nvidia/h100")];
for (let rep = 0; rep < 3; rep++) for (const m of mods) { const t0 = performance.now(); const e = estimateLatency(m); console.log(m.name, (e.seconds*1e6).toFixed(2), (performance.now()-t0).toFixed(1), "ms"); }
