/**
 * A problem with one submission's files (a broken or unsafe zip, no student files): the batch
 * records it in that submission's row and results.json and goes on with the next one.
 */
export class SubmissionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SubmissionError";
  }
}
