/**
 * The tuning statistics TVM's task scheduler prints (`PrintTuningStatistics`):
 *
 *   ID | Name | FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials | Done
 *
 * one row per task (speed, latency and weighted latency `N/A` until a run succeeds, `Y` in Done
 * once the task is terminated), then `Total trials: N` and `Total latency (us): X`, the sum of the
 * weighted latencies of the tasks with a valid run.
 */
import { type TableRow, printTable } from "./table-printer.js";

/** What the table needs of a task (the scheduler's TaskRecord has these fields). */
export interface TaskSummary {
  readonly name: string;
  readonly flop: number;
  readonly weight: number;
  readonly trials: number;
  /** Best latency in seconds; FAILED_RUN_SECS (1e10) or more when no run succeeded. */
  readonly bestLatency: number;
  readonly done: boolean;
}

const HEADER = ["ID", "Name", "FLOP", "Weight", "Speed (GFLOPS)", "Latency (us)", "Weighted Latency (us)", "Trials", "Done"];
/** The header when the runner estimates (the simulated runner): no figure reads as a measurement. */
const ESTIMATED_HEADER = ["ID", "Name", "FLOP", "Weight", "Est. Speed (GFLOPS)", "Est. Latency (us)", "Est. Weighted Latency (us)", "Trials", "Done"];

/** C++ iostream's default formatting of a double (`%g`, 6 significant digits), as TVM prints the total. */
export function formatGeneral(value: number): string {
  if (value === 0) return "0";
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, exp] = value.toExponential(5).split("e") as [string, string];
    const e = Number(exp);
    return `${stripZeros(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return stripZeros(value.toFixed(Math.max(0, 5 - exponent)));
}

function stripZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

export function formatTuningSummary(tasks: readonly TaskSummary[], opts: { readonly estimated?: boolean | undefined } = {}): string {
  const estimated = opts.estimated === true;
  let totalTrials = 0;
  let totalLatencyUs = 0;
  const rows: TableRow[] = [estimated ? ESTIMATED_HEADER : HEADER, "separator"];
  tasks.forEach((task, id) => {
    const valid = task.bestLatency < 1e10;
    const latencyUs = task.bestLatency * 1e6;
    totalTrials += task.trials;
    if (valid) totalLatencyUs += latencyUs * task.weight;
    rows.push([
      String(id),
      task.name,
      String(Math.trunc(task.flop)),
      String(Math.trunc(task.weight)),
      valid ? (task.flop / latencyUs / 1000).toFixed(4) : "N/A",
      valid ? latencyUs.toFixed(4) : "N/A",
      valid ? (latencyUs * task.weight).toFixed(4) : "N/A",
      String(task.trials),
      task.done ? "Y" : "",
    ]);
  });
  rows.push("separator");
  const total = `Total latency (us${estimated ? ", estimated" : ""}): ${formatGeneral(totalLatencyUs)}`;
  return `${printTable(rows)}\nTotal trials: ${totalTrials}\n${total}\n`;
}
