/**
 * A measuring backend for the runner's child process without a GPU (LocalRunnerOptions.backendModule):
 * the artifact's name says what the "kernel" does. `crash` exits the process, `segfault` kills it
 * with SIGSEGV, `hang` never returns, `throws` fails, `fatal` fails and asks for a new process,
 * `wrong` computes a wrong result (`wrong-unsampled`: one wrong element in the middle), `steps` reports
 * fixed step times, `report-options` appends the timing options it was sent to the file its source names; anything else takes `source.length` microseconds per run and
 * "computes" arg[k][i] = i for every argument.
 */
// Only the modules the child needs: the whole package would slow every start of the child.
import { appendFileSync } from "node:fs";
import { FatalTaskError } from "../../src/isolation/serve.js";
import type { MeasureBackend, MeasureResult } from "../../src/runner/measure-backend.js";
import { digestOf } from "../../src/runner/output-digest.js";

export const backend: MeasureBackend = {
  name: "fake",
  async measure(task): Promise<MeasureResult> {
    switch (task.artifact.name) {
      case "crash":
        process.exit(3);
        break;
      case "segfault":
        process.kill(process.pid, "SIGSEGV");
        break;
      case "hang":
        for (;;) {
          // A kernel that never finishes: the event loop is blocked too.
        }
      case "throws":
        throw new Error("the kernel image is invalid");
      case "fatal":
        throw new FatalTaskError("an illegal memory access was encountered");
      default:
        break;
    }
    const runs = Array.from({ length: task.evaluator.repeat }, () => task.artifact.source.length / 1e6);
    // What a GPU backend reports of its steps: fixed figures, so that the runner's sums can be checked.
    if (task.artifact.name === "steps") return { runSecs: runs, stepsMs: { load: 2, timing: 5 }, timed: { gpuMs: 4, runs: 7 } };
    // Appends the timing options the runner sent to the file its "source" names, for the test to read back.
    if (task.artifact.name === "report-options") {
      appendFileSync(task.artifact.source, `${JSON.stringify({ stopAboveMsPerRun: task.stopAboveMsPerRun ?? null, headroom: task.headroom ?? null })}\n`);
      return { runSecs: runs };
    }
    if (!task.returnOutputs) return { runSecs: runs };
    const outputs = task.argsInfo.map((info) => Float32Array.from({ length: info.shape.reduce((a, b) => a * b, 1) }, (_, i) => i));
    if (task.artifact.name === "wrong") outputs[0]![3] = 42;
    // One wrong element in the middle: a check of the first and last elements alone sees it only in the sums.
    const first = outputs[0]!;
    if (task.artifact.name === "wrong-unsampled") first[first.length >> 1] = first[first.length >> 1]! + 1000;
    return { runSecs: runs, outputs: outputs.map((o) => digestOf(o, task.outputSamples)) };
  },
};
