"""Finding an agent or app by name on a gateway that two organizations share: WEFT_URL,
WEFT_API_KEY (the caller's organization) and WEFT_TEST_OTHER_API_KEY (another one's).
Without them these tests are skipped, unless WEFT_TEST_REQUIRE_STACK=1."""

import os
import unittest
import uuid

import support  # noqa: F401  (the client on sys.path)
import weft
from weft.inputs import resolve_target

LINES = {
    "nodes": [
        {"id": "text", "type": "text_input"},
        {"id": "lines", "type": "text_split", "inputs": {"text": "text"}},
        {"id": "first", "type": "list_selector", "params": {"index": 0}, "inputs": {"list": "lines"}},
    ],
    "outputs": [{"id": "first", "type": "text", "description": "The first line"}],
}


NEEDED = ("WEFT_URL", "WEFT_API_KEY", "WEFT_TEST_OTHER_API_KEY")


def setUpModule():
    global mine, theirs
    url, key, other = (os.environ.get(n) for n in NEEDED)
    if not (url and key and other):
        if os.environ.get("WEFT_TEST_REQUIRE_STACK") == "1":
            raise RuntimeError("WEFT_TEST_REQUIRE_STACK=1 but one of %s is not set" % ", ".join(NEEDED))
        raise unittest.SkipTest("set %s to run these against a stack" % ", ".join(NEEDED))
    mine, theirs = weft.Client(url, key), weft.Client(url, other)


def publish(client, name, visibility):
    body = {"name": name, "description": "Published by the Python client's tests", "visibility": visibility}
    return client.request("POST", "/agents", json={**body, "flow": LINES})


class LookupTest(unittest.TestCase):
    def test_your_own_agent_wins_over_another_organizations_public_one(self):
        name = "Python shared name %s" % uuid.uuid4().hex[:8]
        public = publish(theirs, name, "public")
        # Only the other organization has one: its public agent is found.
        self.assertEqual(resolve_target(mine, name.upper(), None)[1]["id"], public["id"])

        own = publish(mine, name, "private")
        self.assertEqual(resolve_target(mine, name, None)[1]["id"], own["id"])
        run = mine.run(name, {"text": "mine\ntheirs"}, timeout=60)
        self.assertEqual((run["agent_id"], run["results"][0]["value"]), (own["id"], "mine"))
        # Its own public agent, listed among the public ones too, is found once.
        self.assertEqual(resolve_target(theirs, name, None)[1]["id"], public["id"])

    def test_two_of_one_name_at_the_same_level_are_ambiguous_and_say_whose(self):
        name = "Python twice %s" % uuid.uuid4().hex[:8]
        first, second = publish(theirs, name, "public"), publish(theirs, name, "public")
        with self.assertRaises(weft.WeftLookupError) as caught:
            resolve_target(mine, name, None)
        message = str(caught.exception)
        for agent in (first, second):
            self.assertIn("agent %s (public, another organization)" % agent["id"], message)

        own = [publish(mine, name, "private"), publish(mine, name, "shared")]
        with self.assertRaises(weft.WeftLookupError) as caught:
            resolve_target(mine, name, None)
        message = str(caught.exception)
        for agent in own:
            self.assertIn("agent %s (yours)" % agent["id"], message)
        self.assertNotIn("public", message)


if __name__ == "__main__":
    unittest.main()
