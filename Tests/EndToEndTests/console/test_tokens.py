"""The console against ck serve WITH authentication (ConsoleBrowserTests starts this module's server without
--no-auth): the page asks for a web auth token, acts as the token's user, keeps the rotated token each answer hands
back, and shows AUTHENTICATION_REQUIRED without one. X-CK-User is ignored here (the server reads it only under
--no-auth), so nothing in the page can act as another user without that user's token."""
import json

AS = ("--as", "alice")


def seed(h):
    h.ck("record", "save", "Note", "--name", "mine", "title=only alice's", "priority:int64=1", *AS)
    h.ck("schema", "index", "Note", "___recordID", "--queryable", *AS)


def run_query(h):
    h.section("records")
    h.type("#q-type", "Note")
    h.type("#q-predicate", "priority >= 1")
    h.click("#q-run")


def rows(h):
    return h.script("return Array.from(document.querySelectorAll('#results tbody tr[data-record]'))"
                    ".map(function (e) { return e.getAttribute('data-record'); })")


def test_without_a_token_the_page_asks_for_one_and_private_data_is_refused(h):
    seed(h)
    h.open()
    assert h.find("#token").is_displayed()
    assert h.find("#token-use").is_displayed()
    # The user picker can't choose anyone without their token.
    assert h.find("#pick-user").get_attribute("disabled") is not None
    run_query(h)
    text = h.wait_text("#error", "AUTHENTICATION_REQUIRED")
    assert rows(h) == [], rows(h)
    assert "421" not in text or "AUTHENTICATION_REQUIRED" in text


def test_a_token_acts_as_its_user_and_its_rotations_keep_working(h):
    token = h.ck("serve", "token", "create", *AS).strip().splitlines()[-1].strip()
    h.open()
    h.type("#token", token)
    h.click("#token-use")
    h.wait(lambda d: h.find("#pick-user").get_attribute("value") == "alice", "the user picker to show alice")
    run_query(h)
    h.wait(lambda d: rows(h) == ["mine"], "alice's record (shown: %s)" % rows(h))
    # Each answer hands back a rotated token, which the page keeps and sends next: a second query still works and the
    # page now holds a token other than the one typed.
    h.click("#q-run")
    h.wait(lambda d: rows(h) == ["mine"], "the second query")
    held = h.script("return ck.state.token")
    assert held and held != token, "the page did not keep the rotated token"
    # The rotated token is alice's on the wire too.
    status, body = h.http("POST", "/database/1/iCloud.ck.default/development/private/users/current", {},
                          {"X-Apple-CloudKit-Web-Auth-Token": held})
    assert status == 200 and body.get("firstName") == "alice", (status, body)


def test_the_no_auth_headers_do_not_make_the_page_another_user(h):
    token = h.ck("serve", "token", "create", "--as", "bob").strip().splitlines()[-1].strip()
    h.open()
    h.type("#token", token)
    h.click("#token-use")
    h.wait(lambda d: h.find("#pick-user").get_attribute("value") == "bob", "the user picker to show bob")
    # Even a request the page makes naming alice in X-CK-User acts as bob: the server ignores it with tokens.
    names = h.script("""
        return fetch('/database/1/iCloud.ck.default/development/private/records/lookup', {
            method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-CK-User': 'alice',
                      'X-Apple-CloudKit-Web-Auth-Token': ck.state.token},
            body: JSON.stringify({records: [{recordName: 'mine'}]})
        }).then(r => r.json()).then(j => j.records.map(r => r.serverErrorCode || r.recordName));
    """)
    assert names == ["NOT_FOUND"], names
