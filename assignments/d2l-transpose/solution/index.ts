/** INSTRUCTOR SOLUTION: the trusted functions the autograder runs in its own process (stand-ins for failed tasks). */
export * from "./transpose.js";
