export { parseTVMScript, parsePrimFunc, type ParseOptions, type ClosureValue, type ClosureVariable } from "./module-parser.js";
export { TVMScriptSyntaxError, type SourcePos } from "./errors.js";
export type { DialectOption, TVMScriptDialect } from "./dialect.js";
