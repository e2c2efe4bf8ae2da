// A program that uses the published Tessera packages from outside the workspace, with plain
// `node` (no tsx, no source condition): parse a TVMScript matmul, schedule it for a GPU, lower
// it, emit CUDA C, run it on the simulator and through the runtime's build(), and check both
// against the CPU executor. Prints one JSON line of facts for the test to check; exits non-zero
// (with the reason on stderr) when a number is wrong.
import { codegenCuda, lower, target } from "@tessera/codegen";
import { compilePrimFunc, parsePrimFunc, printTVMScript, randomArgs } from "@tessera/ir";
import { defaultCudaSpaceGenerator, tuneContext, workloadOf } from "@tessera/meta-schedule";
import { tuningCurveSVG } from "@tessera/meta-schedule/report";
import { build, cuda, loadNative } from "@tessera/runtime";
import { Schedule } from "@tessera/schedule";
import { simulate } from "@tessera/simulator";

const N = 32;
const script = `
@T.prim_func
def matmul(A: T.Buffer((${N}, ${N}), "float32"), B: T.Buffer((${N}, ${N}), "float32"), C: T.Buffer((${N}, ${N}), "float32")):
    for i, j, k in T.grid(${N}, ${N}, ${N}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;

const func = parsePrimFunc(script);
const sch = new Schedule(func);
const [i, j] = sch.getLoops(sch.getBlock("C"));
const [bx, tx] = sch.split(i, [null, 8]);
const [by, ty] = sch.split(j, [null, 16]);
sch.reorder(bx, by, tx, ty);
sch.bind(bx, "blockIdx.x");
sch.bind(by, "blockIdx.y");
sch.bind(tx, "threadIdx.x");
sch.bind(ty, "threadIdx.y");

const t4 = target("nvidia/tesla-t4");
const lowered = lower(sch, t4);
const cudaSource = codegenCuda(lowered).source;

function reference() {
  const args = randomArgs(func, 7);
  compilePrimFunc(func).run(args);
  return args;
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let worst = 0;
  for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
  return worst;
}

const expected = reference()[2];
const simulated = randomArgs(func, 7);
simulated[2].fill(Number.NaN); // elements the kernel never writes stay NaN and fail the check
const report = simulate(lowered, simulated);
const simulatorError = maxAbsDiff(simulated[2], expected);

const built = await build(sch, t4, { device: "auto" });
const viaBuild = randomArgs(func, 7);
viaBuild[2].fill(Number.NaN);
built(...viaBuild);
const buildError = built.device === "sim" ? maxAbsDiff(viaBuild[2], expected) : undefined;

const ctx = tuneContext(workloadOf(func), t4, { seed: 1 });
const space = defaultCudaSpaceGenerator(t4);
space.initialize(ctx);
const designSpace = space.generateDesignSpace(ctx);

// The chart packages are optional peers, not installed here: drawing asks for them.
const curveWithoutPeers = await tuningCurveSVG([{ name: "run", points: [{ trials: 1, bestLatencyUs: 1 }] }]).then(
  () => "drawn",
  (err) => err.message,
);

const native = loadNative();
const facts = {
  printedHasBlock: printTVMScript(func).includes('T.block("C")'),
  kernels: lowered.kernels.map((k) => ({ name: k.name, grid: k.launch.grid, block: k.launch.block })),
  cudaHasGlobal: /__global__/.test(cudaSource),
  cudaKernelNames: [...cudaSource.matchAll(/__global__\s+void\s+(?:__launch_bounds__\(\d+\)\s+)?(\w+)/g)].map((m) => m[1]),
  simulatorError,
  races: report.raceCount,
  buildDevice: built.device,
  buildError,
  designSpaces: designSpace.length,
  curveWithoutPeers,
  designSpaceBinds: designSpace[0]?.trace.instructions.filter((inst) => inst.kind.name === "Bind").length ?? 0,
  addonLoaded: native.ok,
  addonPath: native.ok ? native.path : undefined,
  cudaAvailable: cuda.available(),
  cudaUnavailableReason: cuda.available() ? undefined : cuda.unavailableReason(),
};
process.stdout.write(`${JSON.stringify(facts)}\n`);
if (!(simulatorError <= 1e-4) || (buildError !== undefined && !(buildError <= 1e-4))) {
  process.stderr.write(`numbers differ from the CPU executor: simulator ${simulatorError}, build() ${buildError}\n`);
  process.exit(1);
}
