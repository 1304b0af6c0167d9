"""Following a run: its event stream (resumed after a drop), and polling where there is none,
against a loopback server speaking the gateway's event stream protocol."""

import json
import threading
import unittest

import support
import weft

RUN_ID = "7c1d7a54-2b7e-4f57-8a0b-4b3c6f1f3a10"
REVIEW_ID = "d7a0c9e4-55b0-4c8e-9f7e-0c1c5e2b8d21"


def run_record(status="in_progress", **extra):
    record = {
        "id": RUN_ID,
        "status": status,
        "progress": 0.5,
        "results": [],
        "pending_reviews": [],
        "awaiting_human_review": False,
    }
    record.update(extra)
    return record


PARKED = run_record(
    awaiting_human_review=True,
    pending_reviews=[
        {"id": REVIEW_ID, "node_id": "check", "proposed_output": {"prompts": ["first idea", "second idea"]}}
    ],
)
NODE = {
    "node_id": "check",
    "type": "human_review",
    "status": "waiting_review",
    "started_at": None,
    "completed_at": None,
    "cost": 0,
    "error": None,
}
DONE = run_record("completed", progress=1, results=[{"id": "check", "type": "text", "value": "second idea"}])


class FollowTest(unittest.TestCase):
    def serve(self, handle):
        server = support.LoopbackServer(handle)
        self.addCleanup(server.close)
        return server, weft.Client(server.url, "weft_test_key", max_retries=1)

    def test_the_stream_is_followed_to_its_end_resumed_after_a_drop_and_reviews_decided_on_the_way(self):
        decided = threading.Event()

        def handle(x):
            r = x.request
            if r.method == "GET" and r.path == "/runs/%s/events" % RUN_ID:
                x.start_stream()
                if len(server.seen("GET", "/runs/%s/events" % RUN_ID)) == 1:
                    x.event("run", "1", PARKED)
                    x.event("node", "2", NODE)
                    # Dropped before the end: the client must come back after id 2.
                    decided.wait(5)
                    return
                x.write(": keep-alive\n\n")
                x.event("run", "3", run_record(progress=0.9))
                x.event("end", "4", DONE)
                x.end_stream()
            elif r.method == "POST" and r.path == "/runs/%s/reviews/%s" % (RUN_ID, REVIEW_ID):
                x.send_json(204, None)
                decided.set()
            else:
                x.send_json(404, {"detail": "Not Found"})

        server, client = self.serve(handle)
        events = []
        reviews = []

        def on_review(review, run):
            reviews.append((review["id"], run["id"]))
            return weft.approve(["second idea"])

        final = client.runs.wait(RUN_ID, on_event=events.append, on_review=on_review, timeout=30)
        self.assertEqual(final, DONE)
        self.assertEqual([(e.type, e.id) for e in events], [("run", "1"), ("node", "2"), ("run", "3"), ("end", "4")])
        self.assertEqual(events[1].data, NODE)
        self.assertEqual(reviews, [(REVIEW_ID, RUN_ID)])
        [decision] = server.seen("POST")
        self.assertEqual(decision.json(), {"decision": "approve", "output": {"prompts": ["second idea"]}})
        first, second = server.seen("GET", "/runs/%s/events" % RUN_ID)
        self.assertNotIn("Last-Event-ID", first.headers)
        self.assertEqual(second.headers["Last-Event-ID"], "2")
        self.assertEqual(second.headers["Accept"], "text/event-stream")
        # Followed by the stream alone: the run was never polled.
        self.assertEqual(server.seen("GET", "/runs/%s" % RUN_ID), [first, second])

    def test_deltas_go_to_on_delta_only_and_never_move_the_resume_point(self):
        def delta(index, text):
            return "event: delta\ndata: %s\n\n" % json.dumps({"node_id": "write", "index": index, "text": text})

        def handle(x):
            x.start_stream()
            if len(server.seen("GET", "/runs/%s/events" % RUN_ID)) == 1:
                x.event("run", "1", run_record())
                x.write(delta(0, "Hel"))
                x.write(delta(1, "lo"))
                x.end_stream()  # closed without the end: resumed after id 1
                return
            x.write(delta(2, "!"))
            x.event("end", "2", DONE)
            x.end_stream()

        server, client = self.serve(handle)
        events = []
        deltas = []
        final = client.runs.wait(RUN_ID, on_event=events.append, on_delta=deltas.append, timeout=30)
        self.assertEqual(final, DONE)
        self.assertEqual([(e.type, e.id) for e in events], [("run", "1"), ("end", "2")])
        self.assertEqual(
            deltas,
            [
                {"node_id": "write", "index": 0, "text": "Hel"},
                {"node_id": "write", "index": 1, "text": "lo"},
                {"node_id": "write", "index": 2, "text": "!"},
            ],
        )
        second = server.seen("GET", "/runs/%s/events" % RUN_ID)[1]
        self.assertEqual(second.headers["Last-Event-ID"], "1")

    def test_runs_events_yields_the_events_until_the_end(self):
        def handle(x):
            x.start_stream()
            x.event("run", "a", run_record())
            x.event("end", "b", DONE)
            x.write("event: run\nid: c\ndata: {}\n\n")  # after the end: never read
            x.end_stream()

        server, client = self.serve(handle)
        self.assertEqual([(e.type, e.id) for e in client.app_runs.events(RUN_ID)], [("run", "a"), ("end", "b")])
        self.assertEqual(server.requests[0].path, "/app-runs/%s/events" % RUN_ID)

    def poll_server(self, events_status):
        """A gateway without the event stream: GET of the run answers in_progress, then parked
        until the review is decided, then completed."""

        def handle(x):
            r = x.request
            if r.path.endswith("/events"):
                x.send_json(events_status, {"detail": "Not Found"})
            elif r.method == "GET" and r.path == "/app-runs/" + RUN_ID:
                reads = [s for s in server.seen("GET") if s.path == r.path]
                x.send_json(200, DONE if server.seen("POST") else PARKED if len(reads) > 1 else run_record())
            elif r.method == "POST":
                x.send_json(204, None)
            else:
                x.send_json(404, {"detail": "Not Found"})

        server, client = self.serve(handle)
        return server, client

    def test_without_an_event_stream_the_run_is_polled(self):
        # 200 with JSON: a proxy or an older gateway answering something other than a stream.
        for status in (404, 405, 501, 200):
            with self.subTest(events_status=status):
                server, client = self.poll_server(status)
                events = []
                final = client.app_runs.wait(
                    RUN_ID, on_event=events.append, on_review=lambda review, run: weft.retry(), poll_interval=0.3
                )
                self.assertEqual(final, DONE)
                self.assertEqual([e.type for e in events], ["run", "run", "run", "end"])
                self.assertEqual(
                    [e.data["status"] for e in events], ["in_progress", "in_progress", "completed", "completed"]
                )
                self.assertEqual([r.json() for r in server.seen("POST")], [{"decision": "retry"}])
                self.assertEqual(server.seen("POST")[0].path, "/runs/%s/reviews/%s" % (RUN_ID, REVIEW_ID))
                self.assertEqual(len(server.seen("GET", "/app-runs/%s/events" % RUN_ID)), 1)

    def test_a_run_that_does_not_exist_is_not_found_rather_than_polled(self):
        server, client = self.serve(lambda x: x.send_json(404, {"detail": "Run not found"}))
        with self.assertRaises(weft.WeftNotFoundError) as caught:
            client.runs.wait(RUN_ID)
        self.assertEqual(caught.exception.message, "Run not found")
        self.assertEqual([r.path for r in server.requests], ["/runs/%s/events" % RUN_ID, "/runs/" + RUN_ID])

    def test_waiting_gives_up_after_the_timeout_with_the_last_record(self):
        server, client = self.serve(
            lambda x: x.send_json(200, run_record())
            if not x.request.path.endswith("/events")
            else x.send_json(404, {"detail": "Not Found"})
        )
        with self.assertRaises(weft.WeftTimeoutError) as caught:
            client.runs.wait(RUN_ID, timeout=0.5)
        self.assertEqual(caught.exception.run, run_record())
        self.assertIsInstance(caught.exception, TimeoutError)


if __name__ == "__main__":
    unittest.main()
