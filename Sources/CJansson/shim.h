#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H

#include <jansson.h>
#include <stddef.h>

/* jansson exposes these as macros, which Swift cannot import. */

static inline int CJansson_typeof(const json_t *json) { return (int)json_typeof(json); }
static inline json_t *CJansson_boolean(int value) { return json_boolean(value); }

/* json_error_t fields, read through accessors (its text arrives in Swift as a tuple). */
static inline int CJansson_error_line(const json_error_t *error) { return error->line; }
static inline int CJansson_error_column(const json_error_t *error) { return error->column; }
static inline int CJansson_error_code(const json_error_t *error) { return (int)json_error_code(error); }

/* Flags import as Int32 while the functions take size_t; these are ready to pass. */
static inline size_t CJansson_parse_flags(void) {
    return (size_t)(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL);
}
static inline size_t CJansson_dump_flags(int realPrecision) {
    return (size_t)(JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(realPrecision));
}

#endif
