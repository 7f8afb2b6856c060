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
 * message it wrote, requests and notifications, in send order until it is settled, and the
 * null-id errors that came since the last settled one are those of the first unsettled messages
 * the server could not read, in order. A null-id error fails the oldest unsettled message at
 * once when that is a request (had the server read it, its answer would have come first); a
 * notification there may have drawn it or nothing, so it is held — unless no request is
 * unsettled, when it answers a notification, or as many errors are held as messages are
 * unsettled, when each drew one, in order. A response with an id settles its request and
 * every message written before it: each request before it drew one of the held errors, the one
 * its place decides (one per request before it, and as many for the notifications before it as
 * are left over, when that is none or all of them); where the notifications' share leaves it
 * open, the request fails with reason "unattributedError" and those errors are stray. An error
 * that answers a notification (or nothing the client wrote) fails no call: it is emitted as
 * "strayError" and kept in `strayErrors`. A call is never failed by another message's error.
 */
export class Latchkey extends EventEmitter {
  #child;
  #nextId = 1;
  #pending = new Map(); // id -> {resolve, reject, timer, abandoned, method}
  #unsettled = []; // messages written and not yet settled, in send order: {id}, or NOTIFICATION
  #held = []; // null-id errors since the last settled message, not attributable yet
  #unsettledRequests = 0; // how many of #unsettled are requests
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

    // The child is gone once it has exited and its stdout has ended (the answers still in the
    // pipe are read first). Not its "close": a process the child started (a --deliver-command
    // sender) may hold stderr open long after; its tail is waited for a second at most.
    const output = createInterface({ input: child.stdout, crlfDelay: Infinity });
    output.on("line", (line) => this.#receive(line));
    const errors = createInterface({ input: child.stderr, crlfDelay: Infinity });
    errors.on("line", (line) => {
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
      this.emit("stderr", line);
    });
    const ended = (emitter, event) => new Promise((resolve) => emitter.once(event, resolve));
    const stderrEnded = ended(errors, "close");
    const exit = new Promise((resolve) => {
      child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
      child.once("close", (exitCode, signal) => resolve({ exitCode, signal })); // never started
    });
    this.#exited = Promise.all([exit, ended(output, "close")]).then(async ([{ exitCode, signal }]) => {
      await within(stderrEnded, 1000);
      const how = this.#closing ? "the client was closed"
        : signal ? `latchkey was killed by ${signal}` : `latchkey exited with status ${exitCode}`;
      this.#fail(how);
      this.emit("exit", { exitCode, signal });
    });
    child.on("error", (error) => this.#fail(`could not run latchkey: ${error.message}`));
    child.stdin.on("error", () => {}); // EPIPE: reported once the child is gone
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
   * array, or undefined or null (no params member, as the Python client's None). `timeout` in ms
   * (Infinity: no limit; undefined or null: the client's default).
   */
  call(method, params, options) {
    const timeout = options?.timeout ?? this.timeout;
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
      this.#unsettledRequests += 1;
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
   * An error with a null id. The held errors are those of the first unsettled messages the
   * server could not read, in order (it answers in order). The oldest unsettled message, when it
   * is a request, drew the oldest of them: had the server read it, its answer would have come
   * first. A notification there may have drawn it or nothing: held, unless no request is
   * unsettled (every held error answers a notification), or as many errors are held as messages
   * are unsettled (each drew one, in order).
   */
  #nullError(error) {
    this.#held.push(error);
    while (this.#held.length > 0) {
      if (this.#unsettledRequests === 0) {
        this.#unsettled.splice(0, this.#held.length);
        const held = this.#held;
        this.#held = [];
        for (const stray of held) this.#stray(stray);
      } else if (this.#held.length >= this.#unsettled.length) {
        // Every unsettled message drew one (none draws two): they pair in order.
        const written = this.#unsettled;
        this.#unsettled = [];
        this.#unsettledRequests = 0;
        for (const message of written) {
          const held = this.#held.shift();
          const entry = message.id === null ? undefined : this.#take(message.id);
          if (message.id === null) this.#stray(held);
          else if (entry) this.#settle(entry, held);
        }
      } else if (this.#unsettled[0].id === null) {
        return; // a notification's, or a request's behind it: a later answer tells
      } else {
        const request = this.#unsettled.shift();
        this.#unsettledRequests -= 1;
        const entry = this.#take(request.id);
        const held = this.#held.shift();
        if (entry) this.#settle(entry, held);
      }
    }
  }

  /**
   * A response with `id` came: it and every message written before it are settled. Every
   * request before it still waiting drew one of the held errors (see `attribute`).
   */
  #settleThrough(id) {
    const index = this.#unsettled.findIndex((written) => written.id === id);
    if (index < 0) {
      this.#pending.delete(id);
      return;
    }
    const before = this.#unsettled.splice(0, index + 1).slice(0, -1);
    this.#pending.delete(id);
    const requests = before.filter((written) => written.id !== null);
    this.#unsettledRequests -= 1 + requests.length;
    const held = this.#held;
    this.#held = [];
    const places = attribute(before.map((written) => written.id !== null), held.length);
    const taken = new Set(places.filter((place) => place !== null));
    held.forEach((stray, place) => { if (!taken.has(place)) this.#stray(stray); });
    requests.forEach((written, i) => {
      const entry = this.#take(written.id);
      if (!entry) return;
      const place = places[i];
      this.#settle(entry, place !== null ? held[place]
        : held.length < requests.length
          ? new LatchkeyError(`latchkey answered a later request before ${entry.method}`, { reason: "malformedResponse" })
          : new LatchkeyError(`latchkey could not read the ${entry.method} request, and which error without id is its own`
            + " cannot be told (they are in strayErrors)", { reason: "unattributedError" }));
    });
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
    this.#unsettledRequests = 0;
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

/**
 * Which of `errors` held null-id errors each request drew, among messages settled together.
 * `requests` marks the messages in send order (true: a request). Each request drew one (a later
 * request was answered first, and the server answers in order), and the errors left over
 * answered notifications, which ones unknown. A request's error is the one after every error
 * drawn before it: one per request before it, and between what the notifications after it leave
 * over and what those before it can hold. null where that range holds more than one, or where
 * there are fewer errors than requests (an answer out of order).
 */
function attribute(requests, errors) {
  const requestCount = requests.filter(Boolean).length;
  const leftOver = errors - requestCount;
  if (leftOver < 0) return new Array(requestCount).fill(null);
  const notifications = requests.length - requestCount;
  const places = [];
  let before = 0;
  for (const isRequest of requests) {
    if (!isRequest) {
      before += 1;
      continue;
    }
    const low = places.length + Math.max(0, leftOver - (notifications - before));
    const high = places.length + Math.min(before, leftOver);
    places.push(low === high ? low : null);
  }
  return places;
}

/** What `#unsettled` holds for every notification written (one shared entry). */
const NOTIFICATION = Object.freeze({ id: null });

if (Symbol.asyncDispose) Latchkey.prototype[Symbol.asyncDispose] = function () { return this.close(); };

function encode(method, params, id) {
  const message = { jsonrpc: "2.0" };
  if (id !== undefined) message.id = id;
  message.method = method;
  // null, like undefined, leaves the member out: JSON-RPC's params is an object or an array.
  if (params !== undefined && params !== null) message.params = params;
  return JSON.stringify(message, finiteOnly) + "\n";
}

/** Matches a lone surrogate: UTF-8, and so the server, has no such character. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * JSON.stringify's replacer: what JSON or UTF-8 cannot carry throws (as in Python) instead of being sent — NaN and the
 * infinities (JSON would write null), and a string or member name holding a lone surrogate (JSON would write an escape the
 * server refuses as invalid UTF-8).
 */
function finiteOnly(key, value) {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${value} cannot be sent: JSON has no such number (${key ? `member ${key}` : "params"})`);
  }
  if ((typeof value === "string" && LONE_SURROGATE.test(value)) || LONE_SURROGATE.test(key)) {
    throw new TypeError(`a lone surrogate cannot be sent: UTF-8 has no such character (${key ? "in a member" : "params"})`);
  }
  return value;
}

/** True if `promise` settles within `ms` milliseconds. */
function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, ms, false); });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}
