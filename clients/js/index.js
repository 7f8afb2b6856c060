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
 * A running latchkey process. Events: "notification" ({method, params}), "strayError" (a
 * LatchkeyError that answers no call), "stderr" (a line), "exit" ({exitCode, signal}). Every
 * schema method is also a helper: `lk.activation.start({deviceId, activationCode})`,
 * `lk.ping({echo})`, `lk.rpc.discover()`.
 *
 * Errors with a null id. The server answers a message it cannot read (too large, not JSON, no
 * request) with an error whose id is null, whether that message was a request or a
 * notification, and answers everything in the order it arrives. So the client keeps every
 * message it wrote, requests and notifications, in send order until it is settled: a response
 * with an id settles its request and every message written before it; a null-id error answers
 * one of the unsettled messages from the oldest up to the oldest unsettled request, and fails
 * that request only once that is certain — when, since the last settled message, as many
 * null-id errors have come as messages were written up to and including it (or a later request
 * is answered by id first). An error that answers a notification (or nothing the client wrote)
 * fails no call: it is emitted as "strayError" and kept in `strayErrors`.
 */
export class Latchkey extends EventEmitter {
  #child;
  #nextId = 1;
  #pending = new Map(); // id -> {resolve, reject, timer, abandoned, method}
  #unsettled = []; // messages written and not yet settled, in send order: {id}, or NOTIFICATION
  #held = []; // null-id errors since the last settled message, not attributable yet
  #lastNullError = null;
  #stderrTail = [];
  #failure = null; // why calls can no longer be answered, once the child is gone
  #closing = false;
  #exited;

  /** Every notification received, in order. */
  notifications = [];

  /**
   * Every error reply that answers no call, in order: a null-id error for a notification the
   * client sent that the server could not read (e.g. messageTooLarge). Also emitted as "strayError".
   */
  strayErrors = [];

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
      const entry = { resolve, reject, timer: null, abandoned: false, method };
      if (Number.isFinite(timeout)) {
        entry.timer = setTimeout(() => {
          entry.abandoned = true; // stays in #pending, so an id-less reply still pairs in order
          reject(new LatchkeyTimeoutError(`no response to ${method} within ${timeout} ms`));
        }, timeout);
      }
      this.#pending.set(id, entry);
      this.#unsettled.push({ id });
      this.#child.stdin.write(line);
    });
  }

  /**
   * Sends a notification (no response comes). Throws LatchkeyProcessError if the child is gone,
   * or what JSON.stringify throws (nothing is sent then). If the server cannot read it (e.g. it
   * is larger than --max-message-bytes), its error reply is emitted as "strayError"; it never
   * fails a call.
   */
  notify(method, params) {
    if (this.#failure) throw this.#processError();
    const line = encode(method, params);
    this.#unsettled.push(NOTIFICATION);
    this.#child.stdin.write(line);
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
      this.#emitEach("notification", notification);
      return;
    }
    if (!("id" in message)) return;
    if (message.id === null) {
      if ("error" in message) this.#nullError(LatchkeyError.fromResponse(message.error));
      return;
    }
    const entry = this.#pending.get(message.id);
    if (!entry) return;
    this.#settleThrough(message.id);
    if ("error" in message) this.#settle(entry, LatchkeyError.fromResponse(message.error));
    else this.#settle(entry, null, message.result);
  }

  /** Calls each listener of `event` in its own try: one listener's bug stops neither the others nor the reader. */
  #emitEach(event, value) {
    for (const listener of this.rawListeners(event)) {
      try {
        Reflect.apply(listener, this, [value]);
      } catch (error) {
        process.emitWarning(`${event} listener failed: ${error?.stack ?? error}`);
      }
    }
  }

  /** Resolves or rejects a call (a timed-out one drops its answer). */
  #settle(entry, error, result) {
    clearTimeout(entry.timer);
    if (entry.abandoned) return;
    if (error) entry.reject(error);
    else entry.resolve(result);
  }

  /** Takes a request off the pending calls. */
  #take(id) {
    const entry = this.#pending.get(id);
    this.#pending.delete(id);
    return entry;
  }

  /**
   * An error with a null id: it answers one of the unsettled messages from the oldest up to the
   * oldest unsettled request (the server answers in order). With k unsettled messages up to and
   * including that request, k such errors since the last settled message mean all k were
   * answered: the last error is the request's, the others the notifications'.
   */
  #nullError(error) {
    this.#lastNullError = error;
    const first = this.#unsettled.findIndex((written) => written.id !== null);
    if (first < 0) { // no request outstanding: it answers a notification, or nothing
      this.#unsettled.shift();
      this.#stray(error);
      return;
    }
    this.#held.push(error);
    if (this.#held.length <= first) return; // it may be a notification's: the request may still get its own answer
    const [request] = this.#unsettled.splice(0, first + 1).slice(-1);
    const held = this.#held;
    this.#held = [];
    const entry = this.#take(request.id);
    if (entry) this.#settle(entry, held.at(-1));
    for (const stray of held.slice(0, -1)) this.#stray(stray);
  }

  /**
   * A response with `id` came: it and every message written before it are settled. A request
   * before it still waiting was answered by a null-id error: the requests take the last held
   * errors, in order; the earlier ones answered notifications.
   */
  #settleThrough(id) {
    const index = this.#unsettled.findIndex((written) => written.id === id);
    if (index < 0) {
      this.#pending.delete(id);
      return;
    }
    const skipped = this.#unsettled.splice(0, index + 1).slice(0, -1).filter((written) => written.id !== null);
    this.#pending.delete(id);
    const held = this.#held;
    this.#held = [];
    const split = Math.max(0, held.length - skipped.length);
    skipped.forEach((written, i) => {
      const entry = this.#take(written.id);
      if (!entry) return;
      this.#settle(entry, held[split + i] ?? this.#lastNullError
        ?? new LatchkeyError(`latchkey answered a later request before ${entry.method}`, { reason: "malformedResponse" }));
    });
    for (const stray of held.slice(0, split)) this.#stray(stray);
  }

  /** An error reply that answers no call. */
  #stray(error) {
    this.strayErrors.push(error);
    if (this.listenerCount("strayError") === 0) {
      process.emitWarning(`an error reply answers no call: ${error.message} (code ${error.code}, reason ${error.reason})`);
    }
    this.#emitEach("strayError", error);
  }

  #fail(reason) {
    this.#failure ??= reason;
    for (const entry of this.#pending.values()) {
      clearTimeout(entry.timer);
      if (!entry.abandoned) entry.reject(this.#processError());
    }
    this.#pending.clear();
    this.#unsettled = [];
    const held = this.#held;
    this.#held = [];
    for (const stray of held) this.#stray(stray); // received, never attributed: the calls among them failed above
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

/** What `#unsettled` holds for every notification written (one shared entry). */
const NOTIFICATION = Object.freeze({ id: null });

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
