/**
 * The example programs and traces in examples/: the course's manual gemm+ReLU+add schedule at
 * 256³ (from @tessera/corpus, i.e. the instructor solution's own steps) and a d2l CPU operator, a
 * vector add, scheduled for the C target (parallel + SIMD) and for a GPU. `pnpm examples` writes
 * them; apps/cli/test/examples.test.ts checks that the checked-in files are what this produces.
 */
import { ops, printTVMScript } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { manualSchedule } from "@tessera/corpus";

/** File name in examples/ → contents. */
export function exampleFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const manual = manualSchedule(256);
  // Named as examples/gemm_relu_add.py names its function, so that `apply` on that file prints this one.
  files.set("gemm_relu_add_manual.py", printTVMScript(manual.func, { funcName: "main" }));
  files.set("gemm_relu_add_manual.trace.json", `${JSON.stringify(manual.trace, null, 2)}\n`);
  files.set("gemm_relu_add_manual.trace.ts", manual.trace.show());

  // 2^16 elements: enough work per thread team for the C target to keep the parallel loop (PARALLEL_MIN_WORK).
  const vadd = ops.vectorAdd(1 << 16).func;
  files.set("vector_add.py", printTVMScript(vadd, { funcName: "vector_add" }));
  const cpu = vectorAddCpu(vadd);
  files.set("vector_add_cpu.py", printTVMScript(cpu.func, { funcName: "vector_add" }));
  files.set("vector_add_cpu.trace.json", `${JSON.stringify(cpu.trace, null, 2)}\n`);
  files.set("vector_add_gpu.trace.json", `${JSON.stringify(vectorAddGpu(vadd).trace, null, 2)}\n`);
  return files;
}

/** d2l's CPU vector add: 64 chunks of 1024 across the cores, 8-wide SIMD inside. */
function vectorAddCpu(func: ReturnType<typeof ops.vectorAdd>["func"]): Schedule {
  const sch = new Schedule(func);
  const [i] = sch.getLoops(sch.getBlock("C"));
  const [outer, , lanes] = sch.split(i!, [null, 128, 8]);
  sch.parallel(outer);
  sch.vectorize(lanes);
  return sch;
}

/** The same operator on a GPU: 128 threads per block. */
function vectorAddGpu(func: ReturnType<typeof ops.vectorAdd>["func"]): Schedule {
  const sch = new Schedule(func);
  const [i] = sch.getLoops(sch.getBlock("C"));
  const [blocks, threads] = sch.split(i!, [null, 128]);
  sch.bind(blocks, "blockIdx.x");
  sch.bind(threads, "threadIdx.x");
  return sch;
}
