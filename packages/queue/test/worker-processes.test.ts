/**
 * startGpuWorkers: one process per GPU, each with its CUDA_VISIBLE_DEVICES, ready once each prints
 * its ready line; a worker that dies before that fails the start (naming the GPU, quoting its output);
 * one that dies later is reported; stop() ends them all.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startGpuWorkers } from "../src/index.js";
import { until } from "./support/until.js";

/** A stand-in worker process running `body` (plain JavaScript). */
function fakeWorker(body: string): { file: string; args: string[] } {
  return { file: process.execPath, args: ["-e", body] };
}
const READY_THEN_WAIT = `console.log("[w] ready: gpu " + process.env.CUDA_VISIBLE_DEVICES + " " + process.env.EXTRA); setInterval(() => {}, 1000); process.on("SIGTERM", () => process.exit(0));`;

describe("startGpuWorkers", () => {
  it("starts one worker per GPU, pinned to it, and stops them", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "gpu-workers-"));
    const workers = await startGpuWorkers({ gpus: [0, 3], command: fakeWorker(READY_THEN_WAIT), env: { EXTRA: "x1" }, logDir });
    await workers.stop();
    expect(readFileSync(workers.logs.get(0)!, "utf8")).toBe("[w] ready: gpu 0 x1\n");
    expect(readFileSync(workers.logs.get(3)!, "utf8")).toBe("[w] ready: gpu 3 x1\n");
  });

  it("fails, naming the GPU and quoting its output, when a worker exits before it is ready", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "gpu-workers-"));
    const failing = `if (process.env.CUDA_VISIBLE_DEVICES === "1") { console.error("no such GPU"); process.exit(3); } ${READY_THEN_WAIT}`;
    await expect(startGpuWorkers({ gpus: [0, 1], command: fakeWorker(failing), logDir })).rejects.toThrow(
      /the worker on GPU 1 exited \(exit code 3\) before it was ready; its output:\nno such GPU/,
    );
  });

  it("reports a worker that dies after it was ready", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "gpu-workers-"));
    const exits: string[] = [];
    const dying = `console.log("[w] ready: " + process.env.CUDA_VISIBLE_DEVICES); setTimeout(() => process.exit(process.env.CUDA_VISIBLE_DEVICES === "2" ? 7 : 0), process.env.CUDA_VISIBLE_DEVICES === "2" ? 100 : 60000);`;
    const workers = await startGpuWorkers({
      gpus: [2, 5],
      command: fakeWorker(dying),
      logDir,
      onExit: (gpu, how, remaining) => exits.push(`${gpu} ${how} ${remaining}`),
    });
    await until("the worker on GPU 2 to exit", () => (exits.length > 0 ? true : undefined), 10_000);
    await workers.stop();
    expect(exits).toEqual(["2 exit code 7 1"]);
  });

  it("refuses an empty or repeated GPU list", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "gpu-workers-"));
    await expect(startGpuWorkers({ gpus: [], command: fakeWorker(READY_THEN_WAIT), logDir })).rejects.toThrow(/no GPU given/);
    await expect(startGpuWorkers({ gpus: [1, 1], command: fakeWorker(READY_THEN_WAIT), logDir })).rejects.toThrow(/GPU is named twice/);
  });
});
