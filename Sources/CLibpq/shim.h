#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

/* libpq, PostgreSQL's C client, loaded with dlopen(3) on first use: linked directly it pulls
 * some twenty libraries (Kerberos, LDAP, GnuTLS, …) into every start of latchkey, ~2.4 ms of
 * cold start that SQLite users would pay too. Only its header is needed to build. */
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

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

/* The functions used, resolved once by CLibpq_load. */
typedef struct {
    int loaded;
    PGconn * (*PQconnectdbParams)(const char *const *keywords, const char *const *values, int expand_dbname);
    ConnStatusType (*PQstatus)(const PGconn *conn);
    void (*PQfinish)(PGconn *conn);
    int (*PQsocket)(const PGconn *conn);
    int (*PQsendQuery)(PGconn *conn, const char *query);
    int (*PQisBusy)(PGconn *conn);
    int (*PQsetnonblocking)(PGconn *conn, int arg);
    int (*PQconsumeInput)(PGconn *conn);
    PGnotify * (*PQnotifies)(PGconn *conn);
    void (*PQfreemem)(void *ptr);
    ExecStatusType (*PQresultStatus)(const PGresult *res);
    char * (*PQresultErrorField)(const PGresult *res, int fieldcode);
    void (*PQclear)(PGresult *res);
    int (*PQnfields)(const PGresult *res);
    int (*PQntuples)(const PGresult *res);
    char * (*PQfname)(const PGresult *res, int field_num);
    Oid (*PQftype)(const PGresult *res, int field_num);
    int (*PQgetisnull)(const PGresult *res, int tup_num, int field_num);
    char * (*PQgetvalue)(const PGresult *res, int tup_num, int field_num);
    int (*PQgetlength)(const PGresult *res, int tup_num, int field_num);
    PQnoticeProcessor (*PQsetNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    int (*PQenterPipelineMode)(PGconn *conn);
    int (*PQexitPipelineMode)(PGconn *conn);
    int (*PQpipelineSync)(PGconn *conn);
    int (*PQsendPrepare)(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes);
    int (*PQsendQueryPrepared)(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat);
    PGresult * (*PQgetResult)(PGconn *conn);
} CLibpq_table;

/* Loads libpq and resolves every function into a table that lives as long as the process;
 * NULL when libpq is missing or lacks one. Call it once and keep the table (no state here:
 * a static in a header would be one copy per object file). */
static inline const CLibpq_table *CLibpq_load(void) {
    CLibpq_table *t = (CLibpq_table *)calloc(1, sizeof(CLibpq_table));
    if (t == NULL) return NULL;
    void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libpq.5.dylib", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libpq.dylib", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQconnectdbParams = dlsym(lib, "PQconnectdbParams")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQstatus = dlsym(lib, "PQstatus")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQfinish = dlsym(lib, "PQfinish")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsocket = dlsym(lib, "PQsocket")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsendQuery = dlsym(lib, "PQsendQuery")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQisBusy = dlsym(lib, "PQisBusy")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsetnonblocking = dlsym(lib, "PQsetnonblocking")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQconsumeInput = dlsym(lib, "PQconsumeInput")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQnotifies = dlsym(lib, "PQnotifies")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQfreemem = dlsym(lib, "PQfreemem")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQresultStatus = dlsym(lib, "PQresultStatus")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQresultErrorField = dlsym(lib, "PQresultErrorField")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQclear = dlsym(lib, "PQclear")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQnfields = dlsym(lib, "PQnfields")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQntuples = dlsym(lib, "PQntuples")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQfname = dlsym(lib, "PQfname")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQftype = dlsym(lib, "PQftype")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQgetisnull = dlsym(lib, "PQgetisnull")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQgetvalue = dlsym(lib, "PQgetvalue")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQgetlength = dlsym(lib, "PQgetlength")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsetNoticeProcessor = dlsym(lib, "PQsetNoticeProcessor")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQenterPipelineMode = dlsym(lib, "PQenterPipelineMode")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQexitPipelineMode = dlsym(lib, "PQexitPipelineMode")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQpipelineSync = dlsym(lib, "PQpipelineSync")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsendPrepare = dlsym(lib, "PQsendPrepare")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQsendQueryPrepared = dlsym(lib, "PQsendQueryPrepared")) == NULL) { free(t); return NULL; }
    if ((*(void **)&t->PQgetResult = dlsym(lib, "PQgetResult")) == NULL) { free(t); return NULL; }
    t->loaded = 1;
    return t;
}

static inline PGconn * CLibpq_connectdbParams(const CLibpq_table *t, const char *const *keywords, const char *const *values, int expand_dbname) { return t->PQconnectdbParams(keywords, values, expand_dbname); }
static inline ConnStatusType CLibpq_status(const CLibpq_table *t, const PGconn *conn) { return t->PQstatus(conn); }
static inline void CLibpq_finish(const CLibpq_table *t, PGconn *conn) { t->PQfinish(conn); }
static inline int CLibpq_socket(const CLibpq_table *t, const PGconn *conn) { return t->PQsocket(conn); }
static inline int CLibpq_sendQuery(const CLibpq_table *t, PGconn *conn, const char *query) { return t->PQsendQuery(conn, query); }
static inline int CLibpq_isBusy(const CLibpq_table *t, PGconn *conn) { return t->PQisBusy(conn); }
static inline int CLibpq_setnonblocking(const CLibpq_table *t, PGconn *conn, int arg) { return t->PQsetnonblocking(conn, arg); }
static inline int CLibpq_consumeInput(const CLibpq_table *t, PGconn *conn) { return t->PQconsumeInput(conn); }
static inline PGnotify * CLibpq_notifies(const CLibpq_table *t, PGconn *conn) { return t->PQnotifies(conn); }
static inline void CLibpq_freemem(const CLibpq_table *t, void *ptr) { t->PQfreemem(ptr); }
static inline ExecStatusType CLibpq_resultStatus(const CLibpq_table *t, const PGresult *res) { return t->PQresultStatus(res); }
static inline char * CLibpq_resultErrorField(const CLibpq_table *t, const PGresult *res, int fieldcode) { return t->PQresultErrorField(res, fieldcode); }
static inline void CLibpq_clear(const CLibpq_table *t, PGresult *res) { t->PQclear(res); }
static inline int CLibpq_nfields(const CLibpq_table *t, const PGresult *res) { return t->PQnfields(res); }
static inline int CLibpq_ntuples(const CLibpq_table *t, const PGresult *res) { return t->PQntuples(res); }
static inline char * CLibpq_fname(const CLibpq_table *t, const PGresult *res, int field_num) { return t->PQfname(res, field_num); }
static inline Oid CLibpq_ftype(const CLibpq_table *t, const PGresult *res, int field_num) { return t->PQftype(res, field_num); }
static inline int CLibpq_getisnull(const CLibpq_table *t, const PGresult *res, int tup_num, int field_num) { return t->PQgetisnull(res, tup_num, field_num); }
static inline char * CLibpq_getvalue(const CLibpq_table *t, const PGresult *res, int tup_num, int field_num) { return t->PQgetvalue(res, tup_num, field_num); }
static inline int CLibpq_getlength(const CLibpq_table *t, const PGresult *res, int tup_num, int field_num) { return t->PQgetlength(res, tup_num, field_num); }
static inline PQnoticeProcessor CLibpq_setNoticeProcessor(const CLibpq_table *t, PGconn *conn, PQnoticeProcessor proc, void *arg) { return t->PQsetNoticeProcessor(conn, proc, arg); }

static inline int CLibpq_enterPipelineMode(const CLibpq_table *t, PGconn *conn) { return t->PQenterPipelineMode(conn); }
static inline int CLibpq_exitPipelineMode(const CLibpq_table *t, PGconn *conn) { return t->PQexitPipelineMode(conn); }
static inline int CLibpq_pipelineSync(const CLibpq_table *t, PGconn *conn) { return t->PQpipelineSync(conn); }
static inline int CLibpq_sendPrepare(const CLibpq_table *t, PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) { return t->PQsendPrepare(conn, stmtName, query, nParams, paramTypes); }
static inline int CLibpq_sendQueryPrepared(const CLibpq_table *t, PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) { return t->PQsendQueryPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat); }
static inline PGresult * CLibpq_getResult(const CLibpq_table *t, PGconn *conn) { return t->PQgetResult(conn); }

#endif
