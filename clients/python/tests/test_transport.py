"""Retries, errors and idempotency against a loopback server playing the gateway."""

import os
import tempfile
import unittest

import support
import weft

RUN_ID = "0b6f3c52-8f1c-4a51-9a43-2f1f5d6b9a01"
AGENT_ID = "5a3c0e7e-1d7d-4c0c-8c4e-3b1b9f0e2c11"


class TransportTest(unittest.TestCase):
    def serve(self, handle):
        server = support.LoopbackServer(handle)
        self.addCleanup(server.close)
        return server, weft.Client(server.url, "weft_test_key", max_retries=3)

    def test_a_429_is_retried_after_its_retry_after(self):
        def handle(x):
            if len(server.requests) == 1:
                x.send_json(429, {"detail": "Rate limit exceeded"}, {"Retry-After": "1"})
            else:
                x.send_json(200, {"id": AGENT_ID, "name": "A"})

        server, client = self.serve(handle)
        self.assertEqual(client.agents.get(AGENT_ID), {"id": AGENT_ID, "name": "A"})
        first, second = server.requests
        self.assertGreaterEqual(second.at - first.at, 1.0)
        self.assertEqual(first.headers["X-Api-Key"], "weft_test_key")

    def test_a_429_on_a_create_without_external_id_is_retried_too(self):
        # The gateway does nothing for a 429, so sending the create again cannot create twice.
        def handle(x):
            if len(server.requests) == 1:
                x.send_json(429, {"detail": "Rate limit exceeded"}, {"Retry-After": "0"})
            else:
                x.send_json(201, {"id": RUN_ID, "status": "in_progress"})

        server, client = self.serve(handle)
        self.assertEqual(client.runs.create(AGENT_ID, {"text": "a"})["id"], RUN_ID)
        self.assertEqual(
            [r.json() for r in server.seen("POST")],
            [{"agent_id": AGENT_ID, "inputs": [{"id": "text", "value": "a"}]}] * 2,
        )

    def test_retries_run_out_into_a_typed_error(self):
        server, client = self.serve(lambda x: x.send_json(429, {"detail": "Rate limit exceeded"}, {"Retry-After": "0"}))
        with self.assertRaises(weft.WeftRateLimitError) as caught:
            client.runs.get(RUN_ID)
        self.assertEqual(len(server.requests), 4)
        err = caught.exception
        self.assertEqual((err.status, err.code, err.message), (429, "rate_limited", "Rate limit exceeded"))
        self.assertEqual(err.headers.get("Retry-After"), "0")

    def test_a_503_on_a_create_without_external_id_is_not_sent_again(self):
        server, client = self.serve(
            lambda x: x.send_json(
                503, {"detail": "The database is temporarily unavailable; retry later"}, {"Retry-After": "0"}
            )
        )
        with self.assertRaises(weft.WeftServerError) as caught:
            client.runs.create(AGENT_ID, {"text": "a"})
        self.assertEqual(caught.exception.code, "service_unavailable")
        self.assertEqual(len(server.requests), 1)

    def test_a_create_with_external_id_is_retried_and_a_409_gives_the_run_it_created(self):
        # The first attempt went through but its answer was lost (a 503 here); the retry finds the key claimed.
        def handle(x):
            r = x.request
            if r.method == "POST" and len(server.seen("POST")) == 1:
                x.send_json(
                    503, {"detail": "The database is temporarily unavailable; retry later"}, {"Retry-After": "0"}
                )
            elif r.method == "POST":
                x.send_json(409, {"detail": "external_id already used", "existing_id": RUN_ID})
            elif r.path == "/runs?external_id=order-7&limit=1":
                x.send_json(
                    200, {"data": [{"id": RUN_ID, "status": "in_progress"}], "has_more": False, "next_cursor": None}
                )
            elif r.path == "/runs/" + RUN_ID:
                x.send_json(200, {"id": RUN_ID, "status": "in_progress", "external_id": "order-7", "inputs": []})
            else:
                x.send_json(404, {"detail": "Not Found"})

        server, client = self.serve(handle)
        run = client.runs.create(AGENT_ID, {"text": "a"}, external_id="order-7")
        self.assertEqual(run, {"id": RUN_ID, "status": "in_progress", "external_id": "order-7", "inputs": []})
        self.assertEqual(len(server.seen("POST")), 2)
        self.assertEqual(server.seen("POST")[1].json()["external_id"], "order-7")

    def test_a_409_held_by_a_run_of_the_other_kind_is_raised_with_its_holder(self):
        def handle(x):
            if x.request.method == "POST":
                x.send_json(409, {"detail": "external_id already used", "existing_id": RUN_ID})
            else:
                x.send_json(200, {"data": [], "has_more": False, "next_cursor": None})

        server, client = self.serve(handle)
        with self.assertRaises(weft.WeftConflictError) as caught:
            client.app_runs.create(AGENT_ID, {}, external_id="shared-key")
        self.assertEqual((caught.exception.code, caught.exception.existing_id), ("external_id_conflict", RUN_ID))
        self.assertEqual(len(server.seen("POST")), 1)

    def test_an_external_id_over_255_characters_is_refused_before_sending(self):
        server, client = self.serve(lambda x: x.send_json(500, None))
        with self.assertRaisesRegex(ValueError, "1 to 255"):
            client.runs.create(AGENT_ID, {}, external_id="k" * 256)
        self.assertEqual(server.requests, [])

    def test_a_read_cut_off_is_retried(self):
        def handle(x):
            if len(server.requests) == 1:
                x.hang_up()
            else:
                x.send_json(200, {"id": RUN_ID, "status": "completed"})

        server, client = self.serve(handle)
        self.assertEqual(client.runs.get(RUN_ID)["status"], "completed")
        self.assertEqual(len(server.requests), 2)

    def test_validation_errors_carry_every_problem(self):
        detail = [
            {"loc": ["body", "inputs", 0, "value"], "msg": "Input 'text' must be a string", "type": "value_error"},
            {"loc": ["body", "external_id"], "msg": "Too long", "type": "too_long"},
        ]
        server, client = self.serve(lambda x: x.send_json(422, {"detail": detail}))
        with self.assertRaises(weft.WeftValidationError) as caught:
            client.runs.create(AGENT_ID, {"text": 3})
        err = caught.exception
        self.assertEqual(err.details, detail)
        self.assertEqual(err.message, "body.inputs.0.value: Input 'text' must be a string; body.external_id: Too long")
        self.assertEqual(len(server.requests), 1)

    def test_a_download_into_a_directory_keeps_only_the_file_name_given(self):
        server, client = self.serve(
            lambda x: x.send_bytes(
                200, b"image bytes", {"Content-Disposition": 'attachment; filename="../../evil.png"'}
            )
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = client.assets.download(AGENT_ID, tmp)
            self.assertEqual(str(path), os.path.join(tmp, "evil.png"))
            self.assertEqual(path.read_bytes(), b"image bytes")
            self.assertEqual(os.listdir(tmp), ["evil.png"])


if __name__ == "__main__":
    unittest.main()
