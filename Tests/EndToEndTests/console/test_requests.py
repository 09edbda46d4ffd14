"""The Requests section: ck serve's request log, live from the server-sent events stream, with each request's bodies,
a refusal's code and rule, pause, resume and clear. ck serve runs with --no-auth --as alice on a fresh store."""

from selenium.webdriver.common.action_chains import ActionChains

CONTAINER = "iCloud.ck.default"



def shows(h, css, needle):
    return h.shows(css, needle)

def ws(h, database, op, body):
    """A Web Services request made outside the page (as alice, the server's --as user)."""
    return h.http("POST", "/database/1/%s/development/%s/%s" % (CONTAINER, database, op), body)


def rows(h):
    """The log's rows as the page shows them, top first: (seq, {cell class: text})."""
    return h.script("""
        return Array.from(document.querySelectorAll('#requests tbody tr[data-seq]')).map(tr => [
            Number(tr.dataset.seq),
            Object.fromEntries(Array.from(tr.cells).map(td => [td.className, td.textContent]))]);""")


def wait_row(h, what, match):
    """Waits for a row whose cells satisfy match(cells); returns (seq, cells)."""
    return h.wait(lambda d: next((r for r in rows(h) if match(r[1])), None), what)


def row_element(h, seq):
    return h.find('#requests tbody tr[data-seq="%d"]' % seq)


def test_a_request_shows_up_live_newest_on_top(h):
    h.ck("--as", "alice", "record", "save", "Note", "--name", "note-1", "title=first note")
    h.open()
    h.section("requests")
    h.find("table#requests")
    # Set on this page load: still there at the end proves the rows came without a reload.
    h.script("window.__sameLoad = 'yes'")

    status, answer = ws(h, "private", "records/lookup", {"records": [{"recordName": "note-1"}]})
    assert status == 200, answer
    seq1, cells = wait_row(h, "the records/lookup row", lambda c: c.get("operation") == "records/lookup")
    assert cells["method"] == "POST", cells
    assert cells["path"] == "/database/1/iCloud.ck.default/development/private/records/lookup", cells
    assert cells["status"] == "200", cells
    assert cells["code"] == "", cells
    assert float(cells["duration"]) >= 0, cells

    status, answer = ws(h, "private", "records/query", {"query": {"recordType": "Note", "filterBy": [
        {"fieldName": "title", "comparator": "BEGINS_WITH", "fieldValue": {"value": "first"}}]}})
    assert status == 200, answer
    seq2, _ = wait_row(h, "the records/query row", lambda c: c.get("operation") == "records/query")
    assert seq2 > seq1, (seq1, seq2)
    assert rows(h)[0][0] == seq2, "the newest request is not on top: %r" % rows(h)[:3]
    assert h.script("return window.__sameLoad") == "yes", "the page reloaded"


def test_a_click_or_enter_shows_the_bodies(h):
    h.open()
    h.section("requests")
    lookup, _ = wait_row(h, "the earlier records/lookup row", lambda c: c.get("operation") == "records/lookup")
    query, _ = wait_row(h, "the earlier records/query row", lambda c: c.get("operation") == "records/query")

    row_element(h, lookup).click()
    shows(h, "#request-detail .request-body", "note-1")
    response = shows(h, "#request-detail .response-body", "first note")
    assert "recordChangeTag" in response, response
    assert "records/lookup" in h.text("#request-detail h2")

    # The keyboard opens a row too: focus it, press Enter.
    row = row_element(h, query)
    h.script("arguments[0].focus()", row)
    assert h.script("return document.activeElement === arguments[0]", row), "the row takes no focus"
    row.send_keys(h.Keys.ENTER)
    shows(h, "#request-detail h2", "records/query")
    shows(h, "#request-detail .request-body", "Note")
    shows(h, "#request-detail .response-body", "first note")


def test_pause_holds_rows_resume_shows_them_clear_empties_the_log(h):
    h.open()
    h.section("requests")
    wait_row(h, "the earlier records/lookup row", lambda c: c.get("operation") == "records/lookup")

    # A sentinel request, shown before pausing: whatever comes after it must wait.
    ws(h, "private", "zones/list", {})
    before, _ = wait_row(h, "the zones/list row", lambda c: c.get("operation") == "zones/list")
    h.click("#requests-pause")
    assert h.find("#requests-pause").text == "Resume"
    ws(h, "private", "records/lookup", {"records": [{"recordName": "while-paused"}]})
    status, answer = h.http("GET", "/_ck/requests?after=%d" % before)
    waiting = len(answer["requests"])
    assert waiting >= 1, answer
    shows(h, ".requests-status", "paused, %d waiting" % waiting)
    assert all(r[0] <= before for r in rows(h)), "a row came while paused: %r" % rows(h)[:3]

    h.click("#requests-pause")
    assert h.find("#requests-pause").text == "Pause"
    h.wait(lambda d: any(r[0] > before and r[1].get("operation") == "records/lookup" for r in rows(h)),
           "the lookup made while paused")
    newest = max(r[0] for r in rows(h))

    h.click("#requests-clear")
    # Every row from before the clear goes; only the log's own later entries (the DELETE itself) may show.
    h.wait(lambda d: all(r[0] > newest for r in rows(h)), "the table to empty")
    status, answer = h.http("GET", "/_ck/requests")
    assert status == 200 and all(e["seq"] > newest for e in answer["requests"]), answer


def test_a_fault_refusal_shows_its_code_in_the_log_and_the_error_on_the_page(h):
    # A fault refuses the next query; the page makes one from the Records section.
    status, rule = h.http("POST", "/_ck/faults", {"error": "serviceUnavailable", "op": "query", "times": 1})
    assert status == 200, rule
    h.open()
    h.section("records")
    h.type("#q-type", "Note")
    h.type("#q-predicate", "title BEGINSWITH 'first'")
    h.click("#q-run")
    # CloudKit's error, in the page: never a blank page.
    shows(h, "#error", "TRY_AGAIN_LATER")
    assert h.find("#error").get_attribute("role") == "alert"

    h.section("requests")
    seq, cells = wait_row(h, "the refused records/query row",
                          lambda c: c.get("operation") == "records/query" and c.get("code") == "TRY_AGAIN_LATER")
    assert cells["status"] == "503", cells
    row = row_element(h, seq)
    assert "refused" in row.get_attribute("class").split(), row.get_attribute("class")
    row.click()
    shows(h, "#request-detail .response-body", "injected fault")
    shows(h, "#request-detail .code", "TRY_AGAIN_LATER")


def test_a_permission_refusal_shows_the_rule_that_decided_it(h):
    # A refusal inside an HTTP 200 names the rule that decided it: bob's public record, deleted as alice.
    h.open()
    h.section("requests")
    h.ck("--db", "public", "--as", "bob", "record", "save", "Note", "--name", "bobs-note", "title=bob's")
    status, answer = ws(h, "public", "records/modify",
                        {"operations": [{"operationType": "forceDelete", "record": {"recordName": "bobs-note"}}]})
    assert status == 200 and answer["records"][0]["serverErrorCode"] == "ACCESS_DENIED", answer
    seq, cells = wait_row(h, "the refused records/modify row",
                          lambda c: c.get("operation") == "records/modify" and c.get("code") == "ACCESS_DENIED")
    assert cells["status"] == "200", cells
    row = row_element(h, seq)
    assert "refused" in row.get_attribute("class").split(), row.get_attribute("class")
    row.click()
    shows(h, "#request-detail .reason", "WRITE operation not permitted")
    rule = shows(h, "#request-detail .rule", "grants WRITE to _creator")
    assert rule == "public database: record type Note grants WRITE to _creator; user alice holds _world, _icloud", rule


def test_docs_screenshot(h):
    """docs/console.md's picture, written only when CK_CONSOLE_SCREENSHOT names a file (ConsoleBrowserTests passes it
    as --docs-shot): the request log with a permission refusal opened, at 1280×800."""
    if not h.docs_shot:
        return
    h.driver.set_window_size(1280, 800)
    for n, (title, priority) in enumerate([("Buy oat milk", 2), ("Ship the release", 4), ("Book flights", 5)]):
        ws(h, "private", "records/modify", {"operations": [{"operationType": "forceUpdate", "record": {
            "recordType": "Note", "recordName": "note-%d" % (n + 2),
            "fields": {"title": {"value": title}, "priority": {"value": priority}}}}]})
    h.open()
    h.section("requests")
    seq, _ = wait_row(h, "the refused records/modify row", lambda c: c.get("code") == "ACCESS_DENIED")
    row_element(h, seq).click()
    shows(h, "#request-detail .rule", "grants WRITE to _creator")
    # The pointer off the table, so no row shows as hovered.
    ActionChains(h.driver).move_to_element(h.find("#topbar .brand")).perform()
    h.driver.save_screenshot(h.docs_shot)


def test_the_table_keeps_the_last_1000_rows(h):
    h.open()
    h.section("requests")
    for _ in range(1010):
        status, _ = h.http("GET", "/_ck/health")
        assert status == 200
    status, answer = h.http("GET", "/_ck/requests?limit=1")
    last = answer["lastSeq"]
    assert last > 1010, answer
    h.wait(lambda d: rows(h)[0][0] == last, "the newest request, %d, on top" % last)
    seqs = [r[0] for r in rows(h)]
    # Every request was shown as it came; only the newest 1000 stay, in order.
    assert len(seqs) == 1000, len(seqs)
    assert seqs == list(range(last, last - 1000, -1)), (seqs[:3], seqs[-3:])


def test_without_an_event_stream_the_log_is_polled(h):
    # A browser (or a server) without server-sent events: the section polls GET /_ck/requests?after= instead.
    h.open()
    h.script("window.EventSource = undefined")
    h.section("requests")
    shows(h, ".requests-status", "polling")
    status, _ = ws(h, "private", "records/lookup", {"records": [{"recordName": "polled"}]})
    assert status == 200
    status, answer = h.http("GET", "/_ck/requests?limit=1")
    last = answer["lastSeq"]
    h.wait(lambda d: any(r[0] == last and r[1].get("operation") == "records/lookup" for r in rows(h)),
           "the polled records/lookup row, %d" % last)
