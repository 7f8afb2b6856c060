/// What tells a process, after the round trip of a COMMIT was cut off, whether that transaction
/// committed: each write transaction that writes anything also sets its process's row of
/// `latchkey_writer` to the number of that transaction (1, 2, 3 … per process), in the same
/// round trip as COMMIT, so the row holds the number of the process's last committed write.
///
/// Transaction ids cannot tell it (`txid_status`). A server that crashed, or a standby promoted
/// without the end of the old primary's WAL, has never seen the ids the lost transactions drew, and
/// hands them out again: asked about one, it answers for another transaction. The row travels with
/// the transaction's own writes, so it is on a server exactly when they are.
struct PostgresCommitMarker {
    /// The process's row (random, one per store).
    let writer: String
    /// The transaction's number.
    let number: Int64

    /// The upsert the transaction sends before COMMIT (a row pruned or never written is created).
    ///
    /// An upsert, not an UPDATE: its check for the existing row takes no predicate lock (a dirty
    /// snapshot), so writers of other processes' rows never fail a SERIALIZABLE transaction over it.
    var statement: PostgresStatement {
        PostgresStatement(sql: Self.upsert, parameters: [.text(writer), .int(number)], writes: "latchkey_writer")
    }

    private static let upsert = """
        INSERT INTO "latchkey_writer" ("id", "commits", "at") VALUES ($1, $2, now()) \
        ON CONFLICT ("id") DO UPDATE SET "commits" = excluded."commits", "at" = excluded."at"
        """

    /// The number of the writer's last committed transaction (0 if none), once no transaction of the
    /// writer is still in flight on the server: a COMMIT whose connection the client lost may still
    /// be running (waiting for a synchronous standby), and this waits for it on the row's lock (or,
    /// for a first row, on its unique key).
    ///
    /// Run in a transaction whose `lock_timeout` bounds the wait.
    static let lastCommitted = """
        INSERT INTO "latchkey_writer" ("id", "commits", "at") VALUES ($1, 0, now()) \
        ON CONFLICT ("id") DO UPDATE SET "at" = "latchkey_writer"."at" RETURNING "commits"
        """

    /// Rows of processes not heard from for a week (run when a process first connects, with the
    /// connection's settings).
    static let prune = #"DELETE FROM "latchkey_writer" WHERE "at" < now() - interval '7 days'"#
}
