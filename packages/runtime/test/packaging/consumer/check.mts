// Type-checked (not run) in the scratch project against the .d.ts files the packages ship:
// the calls must type-check, and each misuse marked @ts-expect-error must be rejected, which
// only happens when the declarations really resolve (an `any` would accept it).
import { type LoweredModule, codegenCuda, lower, target } from "@tessera/codegen";
import { type PrimFunc, parsePrimFunc, randomArgs } from "@tessera/ir";
import { type TuneContext, tuneContext, workloadOf } from "@tessera/meta-schedule";
import { formatDuration } from "@tessera/meta-schedule/report";
import { MultiLevelTiling } from "@tessera/meta-schedule/space";
import { type BuiltModule, build, cuda } from "@tessera/runtime";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { type SimulationReport, simulate } from "@tessera/simulator";

export async function compile(script: string): Promise<{ cuda: string; report: SimulationReport; built: BuiltModule; ctx: TuneContext }> {
  const func: PrimFunc = parsePrimFunc(script);
  const sch = new Schedule(func);
  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
  const [outer, inner] = sch.split(i, [null, 32]);
  sch.bind(outer, "blockIdx.x");
  sch.bind(inner, "threadIdx.x");
  const lowered: LoweredModule = lower(sch, target("nvidia/tesla-t4"));
  const report = simulate(lowered, randomArgs(func, 0));
  const available: boolean = cuda.available();
  const built = await build(sch, "nvidia/tesla-t4", { device: available ? "cuda" : "sim" });
  // @ts-expect-error: split takes factors, not a string
  sch.split(i, "32");
  // @ts-expect-error: lower returns a module, not a string
  const wrong: string = lower(func, "nvidia/tesla-t4");
  void wrong;
  const elapsed: string = formatDuration(125);
  void elapsed;
  // @ts-expect-error: a schedule rule takes options, not a number
  new MultiLevelTiling(4);
  return { cuda: codegenCuda(lowered).source, report, built, ctx: tuneContext(workloadOf(func), target("nvidia/h100")) };
}
