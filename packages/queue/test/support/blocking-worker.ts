/** A worker process whose BLOCKING jobs hold its thread: nothing of its event loop runs meanwhile. */
import { handlerFor, startWorker } from "../../src/index.js";
import { BLOCKING } from "./test-kinds.js";

const worker = await startWorker({
  redisUrl: process.argv[2] ?? "",
  log: (line) => process.stdout.write(`${line}\n`),
  handlers: [
    handlerFor(BLOCKING, async ({ ms }) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        // a CPU step longer than the lock
      }
      return { pid: process.pid };
    }),
  ],
});
process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
process.stdout.write(`ready ${process.pid}\n`);
