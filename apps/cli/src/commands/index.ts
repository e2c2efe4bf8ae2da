import * as apply from "./apply.js";
import * as build from "./build.js";
import * as equal from "./equal.js";
import * as print from "./print.js";
import * as run from "./run.js";
import * as simulate from "./simulate.js";
import * as tune from "./tune.js";
import * as worker from "./worker.js";
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
  {
    name: "simulate",
    usage: "simulate FILE [--trace T.json] [--func NAME] [--target NAME] [--seed N] [--bank-conflicts]",
    summary: "lower for a GPU target, simulate the kernels and compare with the sequential executor (and report bank conflicts)",
    run: simulate.run,
  },
  {
    name: "build",
    usage: build.BUILD_USAGE,
    summary: "lower a (scheduled) function for a GPU and print its CUDA, C++ header, launch metadata or lowered IR",
    run: build.run,
  },
  {
    name: "tune",
    usage: tune.TUNE_USAGE,
    summary: "tune a function with MetaSchedule (TVM's tune_tir): trials, summary table, JSON database and tuning curve in the work dir",
    run: tune.run,
  },
  {
    name: "worker",
    usage: worker.WORKER_USAGE,
    summary: "a worker of the job queue on Redis: grades submissions (`pnpm grade batch --redis`) and measures tuning candidates (`tune --redis`)",
    run: worker.run,
  },
];
