/** An error of the handout / hand-in commands, meant to be shown to the user as is. */
export class AssignmentCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssignmentCommandError";
  }
}
