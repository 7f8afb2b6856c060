import LatchkeyRPC
import LatchkeyStore

// Termination signals are routed to the stdio loop before anything else runs: one that arrives while the process starts (parsing its
// flags, building its tables) ends it cleanly, exit 0 with nothing in hand, instead of killing it.
StdioLoop.installSignalHandlers(inputFD: 0)
// SQLite's process-wide settings, before anything opens a database (checking a --db file at start does).
SQLiteStore.prepareProcess()
// Room for the store, the callbacks' connections and libdispatch's own files, before anything opens one.
OpenFileLimit.raise()
LatchkeyCommand.start()
