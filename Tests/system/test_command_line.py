"""The command line refuses what cannot work at start, with exit status 2 and the reason on
stderr (issue 25, point 8): a --max-message-bytes that is no size, a --start-time whose lifetimes
RFC 3339 could not write, a --db file that is not SQLite. --help shows the subcommand as optional."""
import os
import resource
import subprocess

from lkharness import binary_path


def run(*args, stdin=b"", open_files=None):
    """`open_files`: (soft, hard) limits on open files for the process."""
    limit = None if open_files is None else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, open_files))
    return subprocess.run([binary_path(), *args], input=stdin, capture_output=True, timeout=30, preexec_fn=limit)


def refused(*args):
    done = run(*args)
    assert done.returncode == 2, (args, done)
    assert done.stdout == b""
    return done.stderr.decode()


def test_max_message_bytes_negative_says_what_is_wrong():
    for value in ["-5", "10", "-1"]:
        message = refused("--in-memory", "--max-message-bytes", value)
        assert "--max-message-bytes must be a number of bytes, at least 64" in message
        assert "Missing value" not in message


def test_a_start_time_whose_lifetimes_cannot_be_written_is_refused():
    for late in ["9999-12-31T12:00:00Z", "9899-10-16T23:59:59Z", "9799-08-02T00:00:00Z"]:
        message = refused("--in-memory", "--clock", "manual", "--start-time", late)
        assert "--start-time must be at most 9799-08-01T23:59:59Z" in message
        assert late not in message  # the input is not quoted
    ping = b'{"jsonrpc":"2.0","id":1,"method":"clock/now"}\n'
    done = run("--in-memory", "--clock", "manual", "--start-time", "9799-08-01T23:59:59Z", stdin=ping)
    assert done.returncode == 0 and b"9799-08-01T23:59:59Z" in done.stdout


def test_a_start_time_without_the_manual_clock_and_an_empty_db_are_refused():
    """A flag that would be ignored is refused, as --key-file without PostgreSQL is."""
    assert "goes with --clock manual" in refused("--in-memory", "--start-time", "2030-01-01T00:00:00Z")
    assert "--db needs" in refused("--db", "")


def test_a_db_that_is_not_sqlite_exits_2_at_start(workdir):
    text = os.path.join(workdir, "notes.txt")
    with open(text, "w") as f:
        f.write("this is not a database, and its content is never echoed\n")
    message = refused("--db", text)
    assert "is not a SQLite database" in message and "never echoed" not in message
    assert "is a directory" in refused("--db", workdir)
    # A new file, an empty one and a real store all serve.
    ping = b'{"jsonrpc":"2.0","id":1,"method":"admin/createUser","params":{"userId":"a"}}\n'
    fresh = os.path.join(workdir, "fresh.sqlite")
    assert run("--db", fresh, stdin=ping).returncode == 0
    assert run("--db", fresh, stdin=ping).returncode == 0  # the store it made is SQLite
    empty = os.path.join(workdir, "empty.sqlite")
    open(empty, "w").close()
    done = run("--db", empty, stdin=ping)
    assert done.returncode == 0 and b'"result"' in done.stdout


def test_a_damaged_store_or_one_whose_key_file_is_gone_exits_2_at_start(workdir):
    """README: "A file that is not a SQLite database (or a directory) exits with status 2 at start": one with the SQLite
    header and garbage after it too. A store with content whose key file is gone is refused, not given a new key (which
    would leave its codes, tokens and sealed secrets unreadable and its registrations looking removed)."""
    damaged = os.path.join(workdir, "damaged.sqlite")
    with open(damaged, "wb") as f:
        f.write(b"SQLite format 3\0" + bytes(10))
    assert "is damaged" in refused("--db", damaged)
    store = os.path.join(workdir, "s.sqlite")
    create = b'{"jsonrpc":"2.0","id":1,"method":"admin/createActivationCode","params":{"userId":"a"}}\n'
    done = run("--db", store, stdin=b'{"jsonrpc":"2.0","id":0,"method":"admin/createUser","params":{"userId":"a"}}\n' + create)
    assert done.returncode == 0 and done.stdout.count(b'"result"') == 2, done
    os.rename(store + ".key", store + ".key.saved")
    message = refused("--db", store)
    assert store + ".key" in message and "missing" in message
    assert not os.path.exists(store + ".key")  # no new key made in its place
    os.rename(store + ".key.saved", store + ".key")
    done = run("--db", store, stdin=create)
    assert done.returncode == 0 and b'"result"' in done.stdout, done


def test_too_few_open_files_exit_2_at_start_and_a_low_soft_limit_is_raised(workdir):
    """With 8 open files a process on a store used to die of SIGILL: libdispatch stops the process when it cannot open
    /proc/<tid>/stat. Below 256 it now exits 2 naming `ulimit -n`; a soft limit under a higher hard one is raised, as the Go
    runtime does, and serves."""
    store = os.path.join(workdir, "s.sqlite")
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"admin/getRegistration","params":{"registrationId":"r"}}\n'
    assert run("--db", store, stdin=ping).returncode == 0
    for few in (8, 12, 255):
        done = run("--db", store, stdin=ping, open_files=(few, few))
        assert done.returncode == 2 and done.stdout == b"", (few, done)
        assert f"may have only {few}" in done.stderr.decode() and "ulimit -n 256" in done.stderr.decode(), done.stderr
    assert run("--db", store, stdin=ping, open_files=(256, 256)).returncode == 0
    done = run("--db", store, stdin=ping, open_files=(8, 4096))
    assert done.returncode == 0 and done.stdout.count(b'"id"') == 2, done


def test_help_shows_the_subcommand_as_optional():
    done = run("--help")
    assert done.returncode == 0
    usage = done.stdout.decode().split("USAGE:")[1].split("OPTIONS:")[0]
    assert "latchkey [<options>]" in usage and "latchkey schema" in usage and "latchkey mcp" in usage
    assert "<subcommand>" not in usage


def test_schema_that_cannot_be_written_is_a_failure():
    """`latchkey schema > file` on a full disk must not report success with a document cut short."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run([binary_path(), "schema"], stdout=full, stderr=subprocess.PIPE, timeout=30)
    assert done.returncode == 1 and b"could not write the document" in done.stderr, done
