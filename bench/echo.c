/*
 * echo.c - the C reference for Latchkey's benchmarks.
 *
 * A minimal but well-behaved JSON-RPC 2.0 server over stdin/stdout with
 * newline-delimited framing, using the same JSON library as Latchkey (jansson):
 *
 *   - read(2) into a 64 KiB buffer; every complete line is parsed with json_loadb;
 *   - a request (an object with a string "method" and an "id") gets
 *       {"jsonrpc":"2.0","id":<id>,"result":{"echo":<params.echo or null>}}
 *     built with jansson and dumped with JSON_COMPACT, plus "\n";
 *   - notifications (no "id") get no reply; unparsable lines get a -32700 error and
 *     other non-requests a -32600 error, both with "id":null;
 *   - replies are buffered while more input is already in hand, and flushed with
 *     write(2) once the buffer holds no more complete lines, i.e. before blocking in
 *     read(2) again. It never sleeps and never flushes per message in a pipelined burst.
 *
 * Arguments are ignored, so it can stand in for `latchkey --in-memory`.
 * Build: cc -O2 -o out/echo_c echo.c $(pkg-config --cflags --libs jansson)
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (64 * 1024)

/* A growable byte buffer. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} buf_t;

static void buf_reserve(buf_t *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap ? b->cap : READ_CHUNK;
    while (cap < b->len + extra) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        perror("echo_c: realloc");
        exit(1);
    }
    b->data = p;
    b->cap = cap;
}

static buf_t out;

/* Write the whole output buffer; exit quietly if the reader has gone. */
static void flush_out(void) {
    size_t off = 0;
    while (off < out.len) {
        ssize_t n = write(STDOUT_FILENO, out.data + off, out.len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            exit(errno == EPIPE ? 0 : 1);
        }
        off += (size_t)n;
    }
    out.len = 0;
}

/* Dump `msg` compactly into the output buffer, followed by a newline. Steals `msg`. */
static void emit(json_t *msg) {
    size_t need = json_dumpb(msg, NULL, 0, JSON_COMPACT);
    if (need == 0) {
        json_decref(msg);
        return;
    }
    buf_reserve(&out, need + 1);
    json_dumpb(msg, out.data + out.len, need, JSON_COMPACT);
    out.len += need;
    out.data[out.len++] = '\n';
    json_decref(msg);
}

static void emit_error(int code, const char *message) {
    emit(json_pack("{s:s, s:n, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", "error", "code", code,
                   "message", message));
}

static void handle_line(const char *line, size_t len) {
    /* Tolerate CRLF and blank lines. */
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len == 0) return;

    json_error_t err;
    json_t *req = json_loadb(line, len, 0, &err);
    if (!req) {
        emit_error(-32700, "Parse error");
        return;
    }
    json_t *method = json_is_object(req) ? json_object_get(req, "method") : NULL;
    if (!json_is_string(method)) {
        emit_error(-32600, "Invalid Request");
        json_decref(req);
        return;
    }
    json_t *id = json_object_get(req, "id");
    if (id) { /* a notification has no id and gets no reply */
        json_t *params = json_object_get(req, "params");
        json_t *echo = json_is_object(params) ? json_object_get(params, "echo") : NULL;

        json_t *result = json_object();
        json_object_set(result, "echo", echo ? echo : json_null());
        json_t *reply = json_object();
        json_object_set_new(reply, "jsonrpc", json_string("2.0"));
        json_object_set(reply, "id", id);
        json_object_set_new(reply, "result", result);
        emit(reply);
    }
    json_decref(req);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);

    buf_t in = {0};
    buf_reserve(&in, READ_CHUNK);
    buf_reserve(&out, READ_CHUNK);

    size_t start = 0; /* first unconsumed byte in `in` */
    for (;;) {
        /* Keep the partial line at the front and make room for a full chunk after it. */
        if (start > 0) {
            memmove(in.data, in.data + start, in.len - start);
            in.len -= start;
            start = 0;
        }
        buf_reserve(&in, READ_CHUNK);

        ssize_t n = read(STDIN_FILENO, in.data + in.len, READ_CHUNK);
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("echo_c: read");
            break;
        }
        if (n == 0) { /* EOF: a final line without a newline still counts */
            if (in.len > 0) handle_line(in.data, in.len);
            break;
        }
        size_t scan = in.len; /* bytes before here were already known to hold no newline */
        in.len += (size_t)n;

        for (;;) {
            char *nl = memchr(in.data + scan, '\n', in.len - scan);
            if (!nl) break;
            size_t end = (size_t)(nl - in.data);
            handle_line(in.data + start, end - start);
            start = end + 1;
            scan = start;
        }
        /* No complete line left: flush before blocking in read(2) again. */
        flush_out();
    }
    flush_out();
    free(in.data);
    free(out.data);
    return 0;
}
