/**
 * `@tessera/meta-schedule/report`: a tuning run's progress, summary table, tuning history and
 * curves. The curves need the optional peers vega and vega-lite (and @resvg/resvg-js for PNG); the
 * progress bar needs cli-progress.
 */
export { createProgressReporter, formatDuration, type ProgressOptions, type ProgressReporter, type ProgressUpdate } from "./progress.js";
export { formatTuningSummary, type TaskSummary } from "./summary-table.js";
export { bestSoFarPoints, tuningCurveSVG, writeTuningCurve, type CurveOptions, type CurvePoint, type CurveSeries } from "./tuning-curve.js";
export { historySeries, readTuningHistory, TuningHistorySchema, type TuningHistory } from "./tuning-history.js";
