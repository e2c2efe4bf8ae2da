/**
 * JavaScript that runs first in the sandboxed child, before any bundled module: it keeps a private
 * channel to the parent (file descriptor 3) and then closes the doors Node's permission model leaves
 * open — Node built-in modules (network, `module`, …) and the global network APIs — and turns
 * `process.exit`/`abort`/`kill` into errors so a submission cannot end grading early.
 * File-system writes, child processes, workers and addons are refused by the permission model itself.
 */
export const SANDBOX_PREAMBLE = String.raw`"use strict";
var __tesseraSend = (function () {
  var fs = require("node:fs");
  return function (message) { fs.writeSync(3, JSON.stringify(message) + "\n"); };
})();
(function () {
  var Module = require("node:module");
  var load = Module._load;
  Module._load = function (request) {
    if (Module.isBuiltin(request)) {
      var err = new Error('a submission may not use Node\'s "' + request + '" module');
      err.code = "TESSERA_SANDBOX";
      throw err;
    }
    return load.apply(this, arguments);
  };
  ["fetch", "WebSocket", "EventSource", "XMLHttpRequest", "Request", "Response"].forEach(function (name) {
    try { delete globalThis[name]; } catch (e) {}
  });
  ["exit", "reallyExit", "abort", "kill", "dlopen", "binding", "_linkedBinding"].forEach(function (name) {
    Object.defineProperty(process, name, {
      value: function () {
        var err = new Error("a submission may not call process." + name + "()");
        err.code = "TESSERA_SANDBOX";
        throw err;
      },
      writable: false,
      configurable: false,
    });
  });
})();
`;
