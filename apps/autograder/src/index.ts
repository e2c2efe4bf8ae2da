/**
 * @tessera/autograder — grades schedule assignments: sandboxed student code, trusted replays,
 * structural checks per task, numerics on a GPU or the simulator, timing, and the reports.
 */
export * from "./manifest/index.js";
export * from "./sandbox/index.js";
export { programView, runStructuralCheck, isStructural } from "./checks/index.js";
export { type AssignmentBinding, assignmentBinding, DEFAULT_ASSIGNMENT } from "./assignment.js";
export { type GradeMode, type GradeOptions, type GradeReport, type ScheduleRole, gradeSubmission, numericsSummary } from "./grade/grade-submission.js";
export type { GpuBackend, NumericsOutcome, NumericsRound, TimingOutcome } from "./grade/numerics-types.js";
export type { CheckGrade, TaskGrade } from "./grade/task-grade.js";
export { scoreTunedTime, type TunedScoring } from "./grade/tuned-score.js";
export { formatTerminalReport } from "./report/terminal.js";
export { toGradescope } from "./report/to-gradescope.js";
export { gradescopeResults, failureResults, writeResults, GradescopeResultsSchema } from "./report/gradescope.js";
export { runGradeCli } from "./cli/main.js";
export { runWorkerCommand, parseWorkerArgs, WORKER_OPTIONS_HELP } from "./cli/worker-command.js";
export { GRADE_JOB } from "./queue/grade-job.js";
