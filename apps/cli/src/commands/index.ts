import * as apply from "./apply.js";
import * as equal from "./equal.js";
import * as print from "./print.js";
import * as run from "./run.js";
import type { Command } from "./types.js";

export type { Command, CommandRunner } from "./types.js";

export const commands: readonly Command[] = [
  {
    name: "print",
    usage: "print FILE [--color]",
    summary: "parse a TVMScript file and print it in canonical form",
    run: print.run,
  },
  {
    name: "equal",
    usage: "equal A B [--names]",
    summary: "check two TVMScript programs for structural equality",
    run: equal.run,
  },
  {
    name: "run",
    usage: "run FILE [--seed N] [--func NAME]",
    summary: "execute a PrimFunc on seeded random inputs",
    run: run.run,
  },
  {
    name: "apply",
    usage: "apply FILE --trace TRACE.json [--func NAME]",
    summary: "replay a schedule trace (JSON) on a TVMScript function and print the result",
    run: apply.run,
  },
];
