// Latchkey client for Node >= 18: spawns the process and speaks JSON-RPC 2.0 to it, one JSON
// message a line on its stdin/stdout. No dependencies.
//
//   const lk = Latchkey.spawn({ args: ["--in-memory", "--seed", "1", "--clock", "manual"] });
//   await lk.ping({ echo: "hi" });          // { echo: "hi" }
//   await lk.close();

import { spawn as spawnChild } from "node:child_process";
import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";
import { bindMethods } from "./generated.js";

export { ERROR_CODES, ERROR_REASONS, METHODS, SCHEMA_VERSION, errors } from "./generated.js";

/** Milliseconds a call waits for its response unless told otherwise. */
export const DEFAULT_TIMEOUT = 30_000;
const STDERR_TAIL_LINES = 50;

/** An error response: `code`, `reason` (`data.reason`), `message`, `data`. */
export class LatchkeyError extends Error {
  constructor(message, { code = null, reason = null, data = null } = {}) {
    super(message);
    this.name = "LatchkeyError";
    this.code = code;
    this.reason = reason;
    this.data = data;
  }

  /** The error for a response's `error` member. */
  static fromResponse(error) {
    if (error === null || typeof error !== "object") {
      return new LatchkeyError("malformed error response", { reason: "malformedResponse" });
    }
    const data = error.data ?? null;
    const reason = data && typeof data === "object" && typeof data.reason === "string" ? data.reason : null;
    return new LatchkeyError(String(error.message ?? ""), { code: error.code ?? null, reason, data });
  }
}

/** The child exited, could not start, or was closed. `exitCode`/`signal` say how it ended. */
export class LatchkeyProcessError extends LatchkeyError {
  constructor(message, { exitCode = null, signal = null, stderr = "" } = {}) {
    super(message, { reason: "processExited" });
    this.name = "LatchkeyProcessError";
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
  }
}

/** No response came within the call's timeout. A late response is dropped. */
export class LatchkeyTimeoutError extends LatchkeyError {
  constructor(message) {
    super(message, { reason: "timeout" });
    this.name = "LatchkeyTimeoutError";
  }
}

/**
 * A running latchkey process. Events: "notification" ({method, params}), "stderr" (a line),
 * "exit" ({exitCode, signal}). Every schema method is also a helper:
 * `lk.activation.start({deviceId, activationCode})`, `lk.ping({echo})`, `lk.rpc.discover()`.
 */
export class Latchkey extends EventEmitter {
  #child;
  #nextId = 1;
  #pending = new Map(); // id -> {resolve, reject, timer, abandoned}; insertion order = send order
  #stderrTail = [];
  #failure = null; // why calls can no longer be answered, once the child is gone
  #closing = false;
  #exited;

  /** Every notification received, in order. */
  notifications = [];

  /**
   * Starts latchkey: `binary`, else `$LATCHKEY_BIN`, else `latchkey` on PATH.
   * `timeout` is the default per-call timeout in milliseconds.
   */
  static spawn({ binary, args = [], env, cwd, timeout = DEFAULT_TIMEOUT } = {}) {
    const path = binary || process.env.LATCHKEY_BIN || "latchkey";
    const child = spawnChild(path, args, { stdio: ["pipe", "pipe", "pipe"], env, cwd });
    return new Latchkey(child, { timeout });
  }

  /** Wraps a child process started with three pipes (see `spawn`). */
  constructor(child, { timeout = DEFAULT_TIMEOUT } = {}) {
    super();
    this.#child = child;
    this.timeout = timeout;
    Object.assign(this, bindMethods(this));

    this.#exited = new Promise((resolve) => {
      child.on("close", (exitCode, signal) => {
        const how = this.#closing ? "the client was closed"
          : signal ? `latchkey was killed by ${signal}` : `latchkey exited with status ${exitCode}`;
        this.#fail(how);
        this.emit("exit", { exitCode, signal });
        resolve();
      });
    });
    child.on("error", (error) => this.#fail(`could not run latchkey: ${error.message}`));
    child.stdin.on("error", () => {}); // EPIPE: reported through "close"

    createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => this.#receive(line));
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
      this.emit("stderr", line);
    });
  }

  /** The child process. */
  get child() { return this.#child; }

  /** The child's exit status (null while it runs, or when a signal ended it). */
  get exitCode() { return this.#child.exitCode; }

  /** The last lines the child wrote to stderr. */
  get stderrTail() { return this.#stderrTail.join("\n"); }

  /**
   * Sends a request; resolves with its result, rejects with a LatchkeyError (an error
   * response), LatchkeyTimeoutError, or LatchkeyProcessError. `params` may be an object, an
   * array, or undefined (no params member). `timeout` in ms (Infinity: no limit).
   */
  call(method, params, { timeout = this.timeout } = {}) {
    if (this.#failure) return Promise.reject(this.#processError());
    const id = this.#nextId++;
    let line;
    try {
      line = encode(method, params, id);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, timer: null, abandoned: false };
      if (Number.isFinite(timeout)) {
        entry.timer = setTimeout(() => {
          entry.abandoned = true; // stays in #pending, so an id-less reply still pairs in order
          reject(new LatchkeyTimeoutError(`no response to ${method} within ${timeout} ms`));
        }, timeout);
      }
      this.#pending.set(id, entry);
      this.#child.stdin.write(line);
    });
  }

  /** Sends a notification (no response comes). Throws LatchkeyProcessError if the child is gone. */
  notify(method, params) {
    if (this.#failure) throw this.#processError();
    this.#child.stdin.write(encode(method, params));
  }

  /**
   * Ends stdin (the server finishes and exits 0), waits up to `grace` ms, then sends SIGTERM
   * and, a second later, SIGKILL. Pending calls reject. Resolves with the exit status (null
   * when a signal ended the child: see `child.signalCode`).
   */
  async close({ grace = 5000 } = {}) {
    this.#closing = true;
    this.#child.stdin.end();
    for (const [wait, signal] of [[grace, "SIGTERM"], [1000, "SIGKILL"]]) {
      if (await within(this.#exited, wait)) break;
      this.#child.kill(signal);
    }
    await this.#exited;
    return this.#child.exitCode;
  }

  #receive(line) {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.emitWarning(`latchkey wrote a line that is not JSON (${line.length} chars)`);
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.#dispatch(item);
  }

  #dispatch(message) {
    if (message === null || typeof message !== "object") return;
    if (typeof message.method === "string") {
      const notification = { method: message.method, params: message.params };
      this.notifications.push(notification);
      try {
        this.emit("notification", notification);
      } catch (error) { // a listener's bug must not stop the reader
        process.emitWarning(`notification listener failed: ${error?.stack ?? error}`);
      }
      return;
    }
    if (!("id" in message)) return;
    let id = message.id;
    // An error the server could not tie to a request (e.g. messageTooLarge) answers the
    // oldest request outstanding: requests are answered in order.
    if (id === null && this.#pending.size > 0) id = this.#pending.keys().next().value;
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    if (entry.abandoned) return;
    if ("error" in message) entry.reject(LatchkeyError.fromResponse(message.error));
    else entry.resolve(message.result);
  }

  #fail(reason) {
    this.#failure ??= reason;
    for (const entry of this.#pending.values()) {
      clearTimeout(entry.timer);
      if (!entry.abandoned) entry.reject(this.#processError());
    }
    this.#pending.clear();
  }

  #processError() {
    let message = this.#failure ?? "latchkey is not running";
    const tail = this.stderrTail;
    if (tail) message += `; its stderr ended with:\n${tail.split("\n").slice(-10).join("\n")}`;
    return new LatchkeyProcessError(message, {
      exitCode: this.#child.exitCode, signal: this.#child.signalCode, stderr: tail,
    });
  }
}

if (Symbol.asyncDispose) Latchkey.prototype[Symbol.asyncDispose] = function () { return this.close(); };

function encode(method, params, id) {
  const message = { jsonrpc: "2.0" };
  if (id !== undefined) message.id = id;
  message.method = method;
  if (params !== undefined) message.params = params;
  return JSON.stringify(message) + "\n";
}

/** True if `promise` settles within `ms` milliseconds. */
function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, ms, false); });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}
