import io
import os
import tempfile
import unittest
from email.parser import BytesParser
from email.policy import HTTP

import support  # noqa: F401  (the client on sys.path)
from weft.multipart import FilePart, MultipartForm


def parse(form: MultipartForm):
    """The form read back by the standard library's MIME parser: [(name, filename, content type, bytes)]."""
    body = b"".join(form.chunks())
    assert len(body) == form.length, (len(body), form.length)
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + form.content_type.encode() + b"\r\n\r\n" + body)
    assert message.is_multipart()
    return [
        (
            part.get_param("name", header="content-disposition"),
            part.get_filename(),
            part.get_content_type(),
            part.get_payload(decode=True),
        )
        for part in message.iter_parts()
    ]


class Unseekable(io.RawIOBase):
    """A pipe-like reader: no seek, no tell."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


class MultipartTest(unittest.TestCase):
    def test_fields_then_the_file_with_its_name_and_type(self):
        form = MultipartForm(
            [("visibility", "private"), ("external_id", "k-1")], "file", FilePart(b"\x89PNG data", "a.png")
        )
        self.assertEqual(
            parse(form),
            [
                ("visibility", None, "text/plain", b"private"),
                ("external_id", None, "text/plain", b"k-1"),
                ("file", "a.png", "image/png", b"\x89PNG data"),
            ],
        )
        self.assertTrue(form.content_type.startswith("multipart/form-data; boundary=weft-"))

    def test_bytes_without_a_name_go_as_upload_of_unknown_type(self):
        [(name, filename, content_type, data)] = parse(MultipartForm([], "file", FilePart(b"abc")))
        self.assertEqual((name, filename, content_type, data), ("file", "upload", "application/octet-stream", b"abc"))

    def test_a_path_is_read_for_each_attempt_under_its_own_name(self):
        data = os.urandom(600 * 1024)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "clip.mp4")
            with open(path, "wb") as f:
                f.write(data)
            form = MultipartForm([], "file", FilePart(path))
            first, second = parse(form), parse(form)
        self.assertEqual(first, second)
        self.assertEqual(first[0][1:], ("clip.mp4", "video/mp4", data))

    def test_a_file_object_is_sent_from_where_it_stands_each_attempt(self):
        f = io.BytesIO(b"skip|payload")
        f.seek(5)
        form = MultipartForm([], "file", FilePart(f, "p.txt"))
        self.assertEqual(parse(form)[0][3], b"payload")
        self.assertEqual(parse(form)[0][3], b"payload")

    def test_an_unseekable_stream_is_read_once_and_kept(self):
        form = MultipartForm([], "file", FilePart(io.BufferedReader(Unseekable(b"from a pipe"))))
        self.assertEqual(parse(form)[0][3], b"from a pipe")
        self.assertEqual(parse(form)[0][3], b"from a pipe")

    def test_names_with_quotes_line_breaks_and_non_ascii_letters(self):
        form = MultipartForm([], "file", FilePart(b"x", 'caf\u00e9 "menu"\r\n.pdf'))
        header = b"".join(form.chunks()).split(b"\r\n")[1].decode("utf-8")
        self.assertEqual(
            header, 'Content-Disposition: form-data; name="file"; filename="caf\u00e9 %22menu%22%0D%0A.pdf"'
        )

    def test_a_file_that_shrinks_while_sent_fails_instead_of_sending_a_short_body(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.bin")
            with open(path, "wb") as f:
                f.write(b"0123456789")
            form = MultipartForm([], "file", FilePart(path))
            with open(path, "wb") as f:
                f.write(b"01234")
            with self.assertRaisesRegex(IOError, "5 bytes short"):
                b"".join(form.chunks())

    def test_text_mode_files_are_refused(self):
        with self.assertRaisesRegex(TypeError, "binary mode"):
            FilePart(_TextPipe())  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            FilePart(42)  # type: ignore[arg-type]


class _TextPipe:
    def read(self):
        return "text"


if __name__ == "__main__":
    unittest.main()
