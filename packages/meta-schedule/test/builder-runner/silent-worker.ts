/** A worker for the task-pool tests that starts but never says it is ready. */
setInterval(() => {}, 1 << 30);
