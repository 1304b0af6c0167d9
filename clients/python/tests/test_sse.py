import unittest

import support  # noqa: F401  (the client on sys.path)
from weft.sse import Message, Parser, iter_messages


def lines(text: str):
    return text.splitlines(keepends=True)


class SseParserTest(unittest.TestCase):
    def test_named_events_with_ids_and_json_data(self):
        stream = 'event: run\nid: 7\ndata: {"id": "r"}\n\nevent: end\nid: 8\ndata: {"status": "completed"}\n\n'
        self.assertEqual(
            list(iter_messages(lines(stream))),
            [Message("run", '{"id": "r"}', "7"), Message("end", '{"status": "completed"}', "8")],
        )

    def test_data_lines_are_joined_by_newlines(self):
        self.assertEqual(list(iter_messages(lines("data: a\ndata:b\ndata\n\n"))), [Message("message", "a\nb\n", None)])

    def test_comments_such_as_keep_alives_are_ignored(self):
        self.assertEqual(
            list(iter_messages(lines(": keep-alive\n\n: keep-alive\ndata: x\n\n"))), [Message("message", "x", None)]
        )

    def test_the_last_id_carries_over_to_events_without_one(self):
        got = list(iter_messages(lines("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")))
        self.assertEqual([m.id for m in got], ["1", "1", ""])

    def test_an_id_with_a_nul_is_ignored(self):
        got = list(iter_messages(lines("id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")))
        self.assertEqual([m.id for m in got], ["1", "1"])

    def test_a_blank_line_without_data_dispatches_nothing_and_forgets_the_event_name(self):
        got = list(iter_messages(lines("event: node\n\ndata: x\n\n")))
        self.assertEqual(got, [Message("message", "x", None)])

    def test_only_one_space_after_the_colon_is_dropped(self):
        self.assertEqual(list(iter_messages(lines("data:  two\n\n")))[0].data, " two")

    def test_crlf_line_endings_bytes_and_a_leading_bom(self):
        stream = [b"\xef\xbb\xbfevent: run\r\n", b"data: \xc3\xa9\r\n", b"\r\n"]
        self.assertEqual(list(iter_messages(stream)), [Message("run", "\u00e9", None)])

    def test_unknown_fields_are_ignored_and_retry_takes_digits_only(self):
        parser = Parser()
        for line in ["foo: bar\n", "retry: soon\n", "retry: 1500\n", "data: x\n"]:
            self.assertIsNone(parser.feed(line))
        self.assertEqual(parser.feed("\n"), Message("message", "x", None, 1500))

    def test_an_event_cut_off_by_the_end_of_the_stream_is_dropped(self):
        self.assertEqual(list(iter_messages(lines("data: done\n\ndata: half"))), [Message("message", "done", None)])


if __name__ == "__main__":
    unittest.main()
