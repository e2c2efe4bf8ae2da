import { target } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { gemmReluAdd, structuralEqual, vectorAdd } from "@tessera/ir";
import { Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { type Postproc, rejected, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";

const ctx = tuneContext(workloadOf(gemmReluAdd(256).func), target("nvidia/h100"), { seed: 1 });

describe("replayWithPostprocs", () => {
  it("replays a trace on the workload and marks the start of postprocessing", () => {
    const sch = manualSchedule(256);
    const out = replayWithPostprocs(ctx, Trace.fromJSON(JSON.stringify(sch.trace.toJSON())), [], { seed: 3 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(structuralEqual(out.sch.func, sch.func)).toBe(true);
    expect(out.sch.trace.instructions.at(-1)?.kind.name).toBe("EnterPostproc");
  });

  it("reports a postprocessor's rejection with its name", () => {
    const never: Postproc = { name: "never", apply: () => rejected("too many threads") };
    const out = replayWithPostprocs(ctx, manualSchedule(256).trace, [never], { seed: 3 });
    expect(out).toMatchObject({ ok: false, reason: "postproc never: too many threads" });
  });

  it("reports a trace made for another workload as not replaying", () => {
    const other = tuneContext(workloadOf(vectorAdd(64).func), target("nvidia/h100"), { seed: 1 });
    const out = replayWithPostprocs(other, manualSchedule(256).trace, [], { seed: 3 });
    expect(out).toMatchObject({ ok: false, reason: "the trace does not replay" });
  });
});
