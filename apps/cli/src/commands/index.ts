/**
 * The subcommands. Each one's module (and the compiler packages it uses) is imported only when
 * the command runs: `tessera --help` and `tessera print` must not pay for loading the tuner,
 * the job queue or the autograder.
 */
import type { CommandSpec } from "../help/spec.js";
import { applySpec, buildSpec, equalSpec, printSpec, queueSpec, runSpec, simulateSpec, tuneSpec, workerSpec } from "./specs.js";
import type { Command, CommandRunner } from "./types.js";

export type { Command, CommandRunner } from "./types.js";

function lazyCommand(spec: CommandSpec, load: () => Promise<{ run: CommandRunner }>): Command {
  return {
    name: spec.name,
    usage: `${spec.name} ${spec.usage}`,
    summary: spec.summary,
    spec,
    run: async (args, io) => (await load()).run(args, io),
  };
}

export const commands: readonly Command[] = [
  lazyCommand(printSpec, () => import("./print.js")),
  lazyCommand(equalSpec, () => import("./equal.js")),
  lazyCommand(runSpec, () => import("./run.js")),
  lazyCommand(applySpec, () => import("./apply.js")),
  lazyCommand(simulateSpec, () => import("./simulate.js")),
  lazyCommand(buildSpec, () => import("./build.js")),
  lazyCommand(tuneSpec, () => import("./tune.js")),
  lazyCommand(queueSpec, () => import("./queue.js")),
  lazyCommand(workerSpec, () => import("./worker.js")),
];
