#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

/* libpq names result fields with macros ('C' for the SQLSTATE); Swift cannot import them. */
static inline int CLibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int CLibpq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

/* The type OIDs a result column can carry here (catalog constants, not exported by libpq-fe.h). */
enum {
    CLibpq_BOOLOID = 16,
    CLibpq_BYTEAOID = 17,
    CLibpq_INT8OID = 20,
    CLibpq_INT2OID = 21,
    CLibpq_INT4OID = 23,
    CLibpq_TEXTOID = 25,
};

#endif
