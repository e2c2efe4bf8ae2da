/** A worker for the task-pool tests: answers a task `n` with a function (which cannot be sent back) when n < 0, else with n. */
import { serveTasks } from "../../src/isolation/serve.js";

serveTasks<number, unknown>((n) => (n < 0 ? () => n : n));
