/**
 * A worker process for the queue's tests: handles SQUARE and BROKEN jobs, journals each start and
 * finish (one line each, appended) to TEST_JOURNAL, and exits cleanly on SIGTERM.
 */
import { appendFileSync } from "node:fs";
import { handlerFor, startWorker } from "../../src/index.js";
import { BROKEN, SQUARE } from "./test-kinds.js";

const journal = process.env.TEST_JOURNAL ?? "";
const note = (line: string): void => appendFileSync(journal, `${line}\n`);

const worker = await startWorker({
  redisUrl: process.argv[2] ?? "",
  handlers: [
    handlerFor(SQUARE, async ({ id, n }, { jobId }) => {
      note(`start ${id} ${process.pid} ${jobId}`);
      await new Promise((r) => setTimeout(r, 20));
      note(`done ${id} ${process.pid}`);
      return { id, square: n * n, pid: process.pid };
    }),
    handlerFor(BROKEN, async ({ id }) => {
      note(`start ${id} ${process.pid}`);
      throw new Error(`job ${id} is broken on purpose`);
    }),
  ],
});
process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
process.stdout.write(`ready ${process.pid}\n`);
