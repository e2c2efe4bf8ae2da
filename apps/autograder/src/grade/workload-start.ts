/**
 * Where a sandboxed job that starts from the assignment's workload starts: the workload's TVMScript,
 * which the isolate parses. The isolate carries no assignment's code; the binding makes the workload
 * here, in the grader.
 */
import type { AssignmentBinding } from "@tessera/course-kit";
import { printTVMScript } from "@tessera/ir";
import type { JobStart } from "../sandbox/index.js";

export function workloadStart(binding: AssignmentBinding, size: number): JobStart {
  return { kind: "script", script: printTVMScript(binding.workload(size)) };
}
