/** A worker process that ends as the worker commands do (stopOnSignals); says "stopped" when it has. */
import { handlerFor, startWorker, stopOnSignals } from "../../src/index.js";
import { SQUARE } from "./test-kinds.js";

const worker = await startWorker({
  redisUrl: process.argv[2] ?? "",
  log: () => undefined,
  handlers: [handlerFor(SQUARE, async ({ id, n }) => ({ id, square: n * n, pid: process.pid }))],
});
process.stdout.write(`ready ${process.pid}\n`);
await stopOnSignals(worker, (line) => process.stdout.write(`${line}\n`));
process.stdout.write("stopped\n");
