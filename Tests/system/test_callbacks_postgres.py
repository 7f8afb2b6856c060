"""Callbacks on PostgreSQL (issue 39): the cases of test_callbacks.py whose point is the store shared by
several processes, run on a fresh database of the private cluster `make system` starts
(Tests/pg/cluster.sh: its URI in LATCHKEY_TEST_POSTGRES). Without it these tests skip with a message.

- Four processes on one database deliver 1 000 events each exactly once, with no crash (claims are
  SERIALIZABLE transactions over a lease column: a delivery is attempted by one process at a time).
- A process killed mid-delivery: once the killed one's lease has run out (30 s after its claim, not
  before), the delivery is made again with the same webhook-id and body, exactly once, by one of a
  process that was running all along and the killed one restarted, both racing for it.
- The same taken over by a process that makes no call on the store: one kept busy with `ping`, or one
  started after the kill and sent nothing (it opens the store by itself to look).

The bodies are test_callbacks.py's, shared, so SQLite and PostgreSQL are held to the same checks.
"""
import os
import uuid

import pytest

from test_callbacks import (  # noqa: F401 (receivers is a fixture)
    four_processes_deliver_1000_events_each_exactly_once, killed_mid_delivery_delivered_by_another_with_the_same_webhook_id,
    receivers, taken_over_by_a_process_that_makes_no_store_call)
from test_postgres import psql, with_database

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")

pytestmark = pytest.mark.skipif(not URI, reason="LATCHKEY_TEST_POSTGRES is not set (make system starts a private cluster)")


@pytest.fixture
def store(workdir):
    """The arguments that open a fresh database of the cluster, with one key file for every process."""
    name = "lk_cb_" + uuid.uuid4().hex[:12]
    psql(f"CREATE DATABASE {name}")
    yield ["--db", with_database(URI, name), "--key-file", os.path.join(workdir, "latchkey.key")]
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_four_processes_on_one_postgresql_database_deliver_1000_events_each_exactly_once(spawn, receivers, store):
    four_processes_deliver_1000_events_each_exactly_once(spawn, receivers, store)


def test_a_process_killed_mid_delivery_on_postgresql_delivers_after_restart_with_the_same_webhook_id(spawn, receivers, store):
    killed_mid_delivery_delivered_by_another_with_the_same_webhook_id(spawn, receivers, store, "both")


def test_a_process_busy_with_pings_takes_over_a_killed_delivery_on_postgresql(spawn, receivers, store):
    taken_over_by_a_process_that_makes_no_store_call(spawn, receivers, store, "pings")


def test_a_process_started_after_the_kill_and_sent_nothing_takes_over_on_postgresql(spawn, receivers, store):
    taken_over_by_a_process_that_makes_no_store_call(spawn, receivers, store, "silent")
