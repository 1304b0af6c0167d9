"""The client against a real gateway and worker: WEFT_URL and WEFT_API_KEY name them (an
organization's key; it publishes its own agents and app, named for this run). Without them
these tests are skipped, unless WEFT_TEST_REQUIRE_STACK=1 (the jest suite that starts the
stack sets it), where their absence is an error."""

import os
import tempfile
import unittest
import uuid
from pathlib import Path

import support
import weft

RED, GREEN, BLUE = (220, 30, 30), (30, 200, 60), (30, 60, 220)
RUN_TIMEOUT = 60


def setUpModule():
    global client, fixtures
    url, key = os.environ.get("WEFT_URL"), os.environ.get("WEFT_API_KEY")
    if not (url and key):
        if os.environ.get("WEFT_TEST_REQUIRE_STACK") == "1":
            raise RuntimeError("WEFT_TEST_REQUIRE_STACK=1 but WEFT_URL or WEFT_API_KEY is not set")
        raise unittest.SkipTest("set WEFT_URL and WEFT_API_KEY to run these against a stack")
    client = weft.Client(url, key)
    fixtures = publish_fixtures(client, uuid.uuid4().hex[:8])


def publish_fixtures(client, suffix):
    def agent(name, flow):
        body = {"name": "%s %s" % (name, suffix), "description": "Published by the Python client's tests", "flow": flow}
        return client.request("POST", "/agents", json=body)

    lines = agent(
        "Python lines",
        {
            "nodes": [
                {"id": "text", "type": "text_input"},
                {"id": "lines", "type": "text_split", "inputs": {"text": "text"}},
                {"id": "first", "type": "list_selector", "params": {"index": 0}, "inputs": {"list": "lines"}},
            ],
            "outputs": [{"id": "first", "type": "text", "description": "The first line"}],
        },
    )
    review = agent(
        "Python post idea",
        {
            "nodes": [
                {"id": "topic", "type": "text_input", "required": True},
                {"id": "tone", "type": "text_input", "required": False, "params": {"default": "friendly"}},
                {
                    "id": "join",
                    "type": "prompt_concatenate",
                    "params": {"separator": " / "},
                    "inputs": {"parts": ["topic", "tone"]},
                },
                {"id": "check", "type": "human_review", "inputs": {"value": "join"}},
            ],
            "outputs": [{"id": "check", "type": "text", "description": "Approved prompt"}],
        },
    )
    photos = agent(
        "Python photo review",
        {
            "nodes": [
                {"id": "photos", "type": "image_input", "required": True},
                {
                    "id": "rename",
                    "type": "rename_asset",
                    "params": {"filename": "reviewed-{n}"},
                    "inputs": {"assets": "photos"},
                },
                {"id": "check", "type": "human_review", "inputs": {"value": "rename"}},
            ],
            "outputs": [{"id": "check", "type": "images", "description": "The photos kept"}],
        },
    )
    app = client.request(
        "POST",
        "/apps",
        json={
            "name": "Python photo app %s" % suffix,
            "description": "Published by the Python client's tests",
            "agent_id": photos["id"],
            "inputs": [{"id": "photos", "type": "image", "name": "Photos", "required": True}],
            "outputs": [{"id": "check", "type": "images", "description": "The photos kept"}],
        },
    )
    return {"lines": lines, "review": review, "photos": photos, "app": app, "suffix": suffix}


def key(name):
    return "python-%s-%s" % (fixtures["suffix"], name)


class StackTest(unittest.TestCase):
    def temp_dir(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        return Path(tmp.name)

    def test_upload_from_a_path_and_from_bytes(self):
        red, green = support.png_bytes(8, 6, RED), support.png_bytes(6, 8, GREEN)
        path = self.temp_dir() / "red.png"
        path.write_bytes(red)
        from_path = client.assets.upload(path)
        from_bytes = client.assets.upload(green, filename="green.png", visibility="private")
        for asset in (from_path, from_bytes):
            self.assertEqual(
                (asset["asset_type"], asset["media_type"], asset["media_extension"]), ("reference", "image", "png")
            )
        self.assertEqual(client.assets.get(from_path["id"])["id"], from_path["id"])
        self.assertEqual(client.assets.download(from_path["id"]), red)
        self.assertEqual(client.assets.download(from_bytes["id"]), green)

    def test_a_run_by_name_to_completion(self):
        events = []
        run = client.run(
            fixtures["lines"]["name"], {"text": "first\nsecond"}, on_event=events.append, timeout=RUN_TIMEOUT
        )
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(run["agent_id"], fixtures["lines"]["id"])
        self.assertEqual(run["results"][0]["value"], "first")
        self.assertEqual(events[0].type, "run")
        self.assertEqual((events[-1].type, events[-1].data), ("end", run))

    def test_a_review_decided_through_on_review_with_an_edited_prompt(self):
        seen = []

        def on_review(review, run):
            seen.append((review["node_id"], review["proposed_output"], run["awaiting_human_review"]))
            return weft.approve(["tea, edited"])

        run = client.run(fixtures["review"]["id"], {"topic": "tea"}, on_review=on_review, timeout=RUN_TIMEOUT)
        self.assertEqual(seen, [("check", {"prompts": ["tea / friendly"]}, True)])
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(
            run["results"], [{"id": "check", "type": "text", "value": "tea, edited", "description": "Approved prompt"}]
        )

    def test_upload_run_review_keeping_one_photo_and_download_it(self):
        red, blue = support.png_bytes(10, 10, RED), support.png_bytes(12, 12, BLUE)
        path = self.temp_dir() / "red.png"
        path.write_bytes(red)

        def keep_the_first(review, run):
            return weft.approve(review["proposed_output"]["asset_ids"][:1])

        run = client.run(
            fixtures["photos"]["name"], {"photos": [path, blue]}, on_review=keep_the_first, timeout=RUN_TIMEOUT
        )
        self.assertEqual(run["status"], "completed", run)
        [result] = run["results"]
        self.assertEqual(len(result["value"]), 1)
        # The uploads were made for the run: its inputs name them.
        uploaded = run["inputs"][0]["value"]["asset_ids"]
        self.assertEqual([client.assets.download(i) for i in uploaded], [red, blue])
        saved = client.assets.download(result["value"][0], self.temp_dir())
        self.assertEqual((saved.name, saved.read_bytes()), ("reviewed-1.png", red))

    def test_an_app_run_approved_as_proposed(self):
        green = support.png_bytes(9, 9, GREEN)
        run = client.run(
            fixtures["app"]["id"], {"photos": green}, on_review=lambda review, run: weft.approve(), timeout=RUN_TIMEOUT
        )
        self.assertEqual(run["status"], "completed", run)
        self.assertEqual(run["app_id"], fixtures["app"]["id"])
        self.assertEqual(client.app_runs.get(run["id"])["status"], "completed")
        [result] = run["results"]
        self.assertEqual(client.assets.download(result["value"][0]), green)

    def test_cancel_a_run_waiting_for_review(self):
        created = client.runs.create(fixtures["review"]["id"], {"topic": "to cancel"})

        def cancel_instead(review, run):
            client.runs.cancel(run["id"])
            return None

        run = client.runs.wait(created["id"], on_review=cancel_instead, timeout=RUN_TIMEOUT)
        self.assertEqual((run["status"], run["failure_reason"]), ("canceled", "canceled"))
        with self.assertRaises(weft.WeftConflictError):
            client.runs.cancel(created["id"])

    def test_lists_follow_their_pages(self):
        colours = [(i * 40, 255 - i * 40, 90) for i in range(5)]
        ids = [client.assets.upload(support.png_bytes(4, 4, c))["id"] for c in colours]
        listed = [a["id"] for a in client.assets.list(asset_ids=ids, page_size=2)]
        self.assertEqual(listed, list(reversed(ids)))  # newest first, three pages

        runs = [client.runs.create(fixtures["lines"]["id"], {"text": str(i)})["id"] for i in range(3)]
        seen = []
        for summary in client.runs.list(page_size=2):
            seen.append(summary["id"])
            if set(runs) <= set(seen):
                break
        self.assertEqual(len(seen), len(set(seen)), "a run listed twice")
        self.assertEqual(seen[:3], list(reversed(runs)))

    def test_a_claimed_external_id_gives_the_existing_object(self):
        agent_id = fixtures["lines"]["id"]
        first = client.runs.create(agent_id, {"text": "a"}, external_id=key("run"))
        again = client.runs.create(agent_id, {"text": "b"}, external_id=key("run"))
        self.assertEqual(again["id"], first["id"])
        self.assertEqual(again["inputs"], [{"id": "text", "value": "a"}])
        self.assertEqual([r["id"] for r in client.runs.list(external_id=key("run"))], [first["id"]])

        asset = client.assets.upload(support.png_bytes(3, 3, RED), external_id=key("upload"))
        self.assertEqual(
            client.assets.upload(support.png_bytes(3, 3, BLUE), external_id=key("upload"))["id"], asset["id"]
        )
        self.assertEqual(client.assets.download(asset["id"]), support.png_bytes(3, 3, RED))

        # Agent runs and app runs share one key space: the holder is no app run, so the 409 is raised.
        with self.assertRaises(weft.WeftConflictError) as caught:
            client.app_runs.create(
                fixtures["app"]["id"], {"photos": {"asset_ids": [asset["id"]]}}, external_id=key("run")
            )
        self.assertEqual(caught.exception.existing_id, first["id"])

        ran = client.run(agent_id, {"text": "x\ny"}, external_id=key("client-run"), timeout=RUN_TIMEOUT)
        self.assertEqual(
            client.run(agent_id, {"text": "other"}, external_id=key("client-run"), timeout=RUN_TIMEOUT)["id"], ran["id"]
        )

    def test_a_request_that_fails_validation_claims_no_key(self):
        agent_id = fixtures["lines"]["id"]
        with self.assertRaises(weft.WeftValidationError) as caught:
            client.runs.create(agent_id, {"nope": "x"}, external_id=key("corrected"))
        self.assertEqual(caught.exception.details[0]["loc"], ["body", "inputs", 0, "id"])
        run = client.runs.create(agent_id, {"text": "ok"}, external_id=key("corrected"))
        self.assertEqual(run["external_id"], key("corrected"))

    def test_errors_are_typed(self):
        with self.assertRaises(weft.WeftNotFoundError) as caught:
            client.runs.get(str(uuid.uuid4()))
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "not_found"))
        with self.assertRaises(weft.WeftAuthenticationError):
            next(weft.Client(client.base_url, "weft_not_a_key").agents.list())
        with self.assertRaises(weft.WeftLookupError):
            client.run("no agent has this name %s" % fixtures["suffix"], {})


if __name__ == "__main__":
    unittest.main()
