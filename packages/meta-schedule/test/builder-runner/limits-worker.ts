/** A worker for the task-pool tests: answers each task with its thread's heap limits (`resourceLimits`). */
import { resourceLimits } from "node:worker_threads";
import { serveTasks } from "../../src/isolation/serve.js";

serveTasks<unknown, unknown>(() => ({ ...resourceLimits }));
