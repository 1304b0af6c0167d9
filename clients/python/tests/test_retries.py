import unittest
from email.utils import formatdate

import support  # noqa: F401  (the client on sys.path)
from weft.retries import backoff_delay, may_retry, parse_retry_after

NOW = 1_800_000_000.0


class RetryAfterTest(unittest.TestCase):
    def test_seconds(self):
        self.assertEqual(parse_retry_after("5"), 5.0)
        self.assertEqual(parse_retry_after(" 0 "), 0.0)
        self.assertEqual(parse_retry_after("1.5"), 1.5)
        self.assertEqual(parse_retry_after("-3"), 0.0)

    def test_an_http_date_counts_from_now(self):
        self.assertEqual(parse_retry_after(formatdate(NOW + 30, usegmt=True), now=lambda: NOW), 30.0)
        # The three formats HTTP allows (RFC 9110, 5.6.7) of one moment, 784111777 seconds after the epoch.
        for value in ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"):
            self.assertEqual(parse_retry_after(value, now=lambda: 784111777 - 10), 10.0, value)

    def test_a_date_in_the_past_means_now(self):
        self.assertEqual(parse_retry_after(formatdate(NOW - 60, usegmt=True), now=lambda: NOW), 0.0)

    def test_missing_or_unreadable_is_none(self):
        for value in (None, "", "soon", "nan", "inf", "Wed, 99 Foo 2027"):
            self.assertIsNone(parse_retry_after(value), value)


class BackoffTest(unittest.TestCase):
    def test_doubles_from_half_a_second_with_jitter_up_to_a_cap(self):
        self.assertEqual(backoff_delay(0, rand=lambda: 1.0), 0.5)
        self.assertEqual(backoff_delay(0, rand=lambda: 0.0), 0.25)
        self.assertEqual(backoff_delay(3, rand=lambda: 1.0), 4.0)
        self.assertEqual(backoff_delay(30, rand=lambda: 1.0), 30.0)
        self.assertEqual(backoff_delay(30, rand=lambda: 0.0), 15.0)


class MayRetryTest(unittest.TestCase):
    def test_a_429_always(self):
        self.assertTrue(may_retry(429, "POST", idempotent=False))

    def test_server_errors_and_lost_connections_only_when_safe_to_send_again(self):
        for status in (500, 502, 503, 504, None):
            self.assertTrue(may_retry(status, "GET", idempotent=False), status)
            self.assertTrue(may_retry(status, "DELETE", idempotent=False), status)
            self.assertTrue(may_retry(status, "POST", idempotent=True), status)
            self.assertFalse(may_retry(status, "POST", idempotent=False), status)

    def test_never_other_statuses(self):
        for status in (400, 401, 404, 409, 422, 501):
            self.assertFalse(may_retry(status, "GET", idempotent=True), status)


if __name__ == "__main__":
    unittest.main()
