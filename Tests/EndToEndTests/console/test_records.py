"""The Records section: query, page, open, edit, conflict, delete, new record, and markup shown as text.

The server runs --no-auth --as alice, so the page acts as alice in her private database, _defaultZone; the store is
seeded through the ck binary as alice. Expected values are written here by hand from the seed.
"""
import json

from selenium.webdriver.support.ui import Select

AS = ("--as", "alice")
seeded = False


def seed(h):
    """25 Note records n01…n25 with a field of each type; n02…n25 refer to n01. Done once for the module."""
    global seeded
    if seeded:
        return
    for i in range(1, 26):
        fields = ["title=Note %02d" % i, "priority:int64=%d" % i, "score:double=%d.5" % i,
                  "due:timestamp=2026-01-%02dT12:00:00Z" % i, "place:location=37.5,-122.25", "tags:string[]=a,b"]
        if i > 1:
            fields.append("owner:reference=n01")
        h.ck("record", "save", "Note", "--name", "n%02d" % i, *fields, *AS)
    # A query without a filter needs ___recordID queryable, in development too (docs/query.md §4).
    h.ck("schema", "index", "Note", "___recordID", "--queryable", *AS)
    seeded = True


def fetch(h, name):
    """The record as the command line reads it: {field: value} plus the change tag."""
    return json.loads(h.ck("record", "fetch", name, "-o", "json", *AS))["records"][0]


def field(record, name):
    f = record["fields"][name]
    return f["value"] if isinstance(f, dict) and "value" in f else f


def rows(h):
    # Read in one script: the table is rebuilt when a page arrives, so element handles may go stale.
    return h.script("return Array.from(document.querySelectorAll('#results tbody tr[data-record]'))"
                    ".map(function (e) { return e.getAttribute('data-record'); })")


def text(h, css):
    """An element's text, read in one script (the detail is rebuilt after a save, so handles may go stale)."""
    return h.script("var e = document.querySelector(arguments[0]); return e ? e.textContent : null", css)


def shown(h, css):
    """Whether an element matching css is on the page and displayed, read in one script."""
    return h.script("var e = document.querySelector(arguments[0]); return !!(e && e.offsetParent !== null)", css)


def value(h, name):
    """The detail's input for a field: its current value."""
    return h.script("var e = document.querySelector('#record-detail input[data-field=\"' + arguments[0] + '\"]');"
                    " return e ? e.value : null", name)


def query(h, predicate="", sort="priority", limit="10", enter=False):
    h.open()
    h.section("records")
    h.type("#q-type", "Note")
    h.type("#q-sort", sort)
    h.type("#q-limit", limit)
    e = h.type("#q-predicate", predicate)
    if enter:
        e.send_keys(h.Keys.ENTER)
    else:
        h.click("#q-run")


def wait_rows(h, expected):
    h.wait(lambda d: rows(h) == expected, "rows %s (shown: %s)" % (expected, rows(h)))


def open_record(h, name):
    """Shows a query holding the record and opens it from its row with the keyboard (focus, Enter)."""
    query(h, "priority >= 1", limit="50")
    h.wait(lambda d: name in rows(h), "row " + name)
    row = h.find('#results tr[data-record="%s"]' % name)
    h.script("arguments[0].focus()", row)
    row.send_keys(h.Keys.ENTER)
    h.wait_text("#record-detail .sys-recordName", name)


def test_query_shows_rows_one_column_per_field_and_pages(h):
    seed(h)
    query(h)
    wait_rows(h, ["n%02d" % i for i in range(1, 11)])
    headers = [e.text for e in h.all("#results thead th")]
    for name in ("title", "priority", "score", "due", "place", "tags", "owner"):
        assert name in headers, headers
    cells = {e.get_attribute("data-field"): e for e in h.all('#results tr[data-record="n02"] td[data-field]')}
    assert cells["title"].text == "Note 02", cells["title"].text
    assert cells["priority"].text == "2"
    assert cells["score"].text == "2.5"
    assert cells["place"].text == "37.5, -122.25", cells["place"].text
    assert cells["tags"].text == "a, b", cells["tags"].text
    assert cells["owner"].find_elements(h.By.CSS_SELECTOR, "a.ref")[0].text == "n01"
    # TIMESTAMP: local time, with the milliseconds in the title (2026-01-02T12:00:00Z).
    assert cells["due"].find_elements(h.By.CSS_SELECTOR, "time")[0].get_attribute("title") == "1767355200000"
    h.click("#q-next")
    wait_rows(h, ["n%02d" % i for i in range(11, 21)])
    h.click("#q-next")
    wait_rows(h, ["n%02d" % i for i in range(21, 26)])
    h.wait(lambda d: h.find("#q-next").get_attribute("disabled") is not None, "q-next disabled on the last page")


def test_enter_in_the_predicate_runs_the_query_with_sort_and_filters(h):
    seed(h)
    query(h, "priority >= 20 AND priority < 25", sort="-priority", enter=True)
    wait_rows(h, ["n24", "n23", "n22", "n21", "n20"])
    query(h, "title IN {'Note 03', 'Note 07'} AND NOT tags CONTAINS 'z'", limit="50", enter=True)
    wait_rows(h, ["n03", "n07"])
    query(h, "title BEGINSWITH 'Note 1' AND ANY tags IN {'b', 'q'}", limit="50", enter=True)
    wait_rows(h, ["n%02d" % i for i in range(10, 20)])
    # Token search: every word in some searchable string field (development searches every STRING field).
    query(h, "self CONTAINS 'note 07'", limit="50", enter=True)
    wait_rows(h, ["n07"])


def test_a_quoted_record_name_compared_with_a_reference_field_is_a_reference(h):
    seed(h)
    # ck query says owner == %@ --arg ref:n01; the page has no --arg, so the schema types the quoted name.
    query(h, "owner == 'n01' AND priority <= 3", enter=True)
    wait_rows(h, ["n02", "n03"])
    query(h, "owner IN {'n01'} AND priority BETWEEN {4, 5}", enter=True)
    wait_rows(h, ["n04", "n05"])
    # The record type suggestions come from the schema.
    assert "Note" in [o.get_attribute("value") for o in h.all("#q-types option")]


def test_a_bad_predicate_shows_the_refusal_naming_it(h):
    seed(h)
    # Refused by the predicate grammar, as ck query refuses it: the column and the hint.
    query(h, "priority > 2 OR priority < 1", enter=True)
    text = h.wait_text("#error", "OR")
    assert "column 14" in text and "BAD_REQUEST" in text and "IN {" in text, text
    assert rows(h) == [], rows(h)
    # CONTAINS on a STRING field: ck query's refusal and hint (the schema says title is STRING).
    query(h, "title CONTAINS 'milk'", enter=True)
    text = h.wait_text("#error", "CONTAINS on the STRING field 'title'")
    assert "column 7" in text and "self CONTAINS" in text, text
    # Refused by the server: CloudKit's error for a field the type does not have.
    query(h, "nosuchfield == 1", enter=True)
    text = h.wait_text("#error", "nosuchfield")
    assert "BAD_REQUEST" in text or "NOT_FOUND" in text, text
    # A failed request shows CloudKit's error, not an empty table.
    h.type("#q-type", "Nope")
    h.type("#q-predicate", "", clear=True)
    h.click("#q-run")
    text = h.wait_text("#error", "Nope")
    assert "NOT_FOUND" in text and "Did not find record type: Nope" in text, text
    # A good query clears the error.
    query(h, "priority == 4", enter=True)
    wait_rows(h, ["n04"])
    assert h.script("return document.getElementById('error').hidden") is True


def test_the_zone_picker_scopes_the_query(h):
    seed(h)
    h.ck("zone", "create", "Work", *AS)
    h.ck("record", "save", "Note", "--name", "w1", "title=At work", "priority:int64=1", "-z", "Work", *AS)
    query(h, "priority == 1", enter=True)
    wait_rows(h, ["n01"])
    h.select("#pick-zone", "Work")
    # Another zone: the old zone's rows go at once, and the query now reads Work.
    wait_rows(h, [])
    h.click("#q-run")
    wait_rows(h, ["w1"])
    h.click('#results tr[data-record="w1"]')
    h.wait_text("#record-detail .sys-zone", "Work")
    h.select("#pick-zone", "_defaultZone")
    wait_rows(h, [])


def test_open_a_record_shows_its_system_fields(h):
    seed(h)
    open_record(h, "n05")
    expected = fetch(h, "n05")
    assert text(h, "#record-detail .sys-recordChangeTag") == expected["recordChangeTag"]
    assert text(h, "#record-detail .sys-created") != ""
    assert text(h, "#record-detail .sys-modified") != ""
    assert value(h, "title") == "Note 05"
    assert value(h, "due") == "2026-01-05T12:00:00.000Z"
    assert value(h, "place") == "37.5, -122.25"
    assert value(h, "owner") == "n01"


def test_a_reference_cell_opens_the_referenced_record(h):
    seed(h)
    query(h, "priority == 9", enter=True)
    wait_rows(h, ["n09"])
    h.click('#results tr[data-record="n09"] a.ref')
    h.wait_text("#record-detail .sys-recordName", "n01")
    assert value(h, "title") == "Note 01"


def test_edit_and_save_under_the_change_tag(h):
    seed(h)
    open_record(h, "n03")
    before = fetch(h, "n03")["recordChangeTag"]
    h.type('#record-detail input[data-field="title"]', "Edited in the console")
    h.type('#record-detail input[data-field="priority"]', "300")
    h.type('#record-detail input[data-field="tags"]', '["x", "y, z"]')
    h.click("#record-save")
    h.wait(lambda d: text(h, "#record-detail .sys-recordChangeTag") != before, "a new change tag in the detail")
    saved = fetch(h, "n03")
    assert saved["recordChangeTag"] == text(h, "#record-detail .sys-recordChangeTag")
    assert field(saved, "title") == "Edited in the console"
    assert field(saved, "priority") == 300
    assert field(saved, "tags") == ["x", "y, z"]
    assert field(saved, "score") == 3.5  # untouched


def make_conflict(h, name):
    """Opens the record, changes it with the command line behind the page's back, then saves a change in the page."""
    open_record(h, name)
    h.ck("record", "save", "Note", "--name", name, "title=Server side", "priority:int64=777", "--policy", "changed-keys", *AS)
    h.type('#record-detail input[data-field="title"]', "Mine")
    h.click("#record-save")
    h.find("#conflict")
    server = h.text("#conflict .conflict-server")
    client = h.text("#conflict .conflict-client")
    ancestor = h.text("#conflict .conflict-ancestor")
    assert "Server side" in server and "777" in server, server
    assert "Mine" in client, client
    assert "Note " in ancestor and "Server side" not in ancestor and "Mine" not in ancestor, ancestor
    assert "CONFLICT" in h.text("#error")


def test_a_conflict_then_take_server(h):
    seed(h)
    make_conflict(h, "n04")
    h.click("#conflict-take-server")
    h.wait(lambda d: value(h, "title") == "Server side",
           "the server's title in the detail")
    saved = fetch(h, "n04")
    assert field(saved, "title") == "Server side"
    assert text(h, "#record-detail .sys-recordChangeTag") == saved["recordChangeTag"]
    assert not shown(h, "#conflict")


def test_a_conflict_then_keep_mine(h):
    seed(h)
    make_conflict(h, "n06")
    h.click("#conflict-keep-mine")
    h.wait(lambda d: not shown(h, "#conflict"), "the conflict to close")
    saved = fetch(h, "n06")
    assert field(saved, "title") == "Mine"
    # Only the field the page changed is written: the server's other change stays.
    assert field(saved, "priority") == 777
    assert text(h, "#record-detail .sys-recordChangeTag") == saved["recordChangeTag"]


def test_delete(h):
    seed(h)
    open_record(h, "n07")
    h.click("#record-delete")
    h.wait(lambda d: "n07" not in rows(h), "the n07 row to go")
    h.wait_text("#toast", "Deleted n07")
    out = json.loads(h.ck("record", "fetch", "n07", "-o", "json", *AS, ok=False))
    assert out["records"] == [] and out["errors"][0]["serverErrorCode"] == "NOT_FOUND", out
    assert h.script("return document.getElementById('record-detail').hidden") is True


def test_new_record_with_typed_fields(h):
    seed(h)
    h.open()
    h.section("records")
    h.type("#q-type", "Note")
    h.click("#record-new")
    h.type("#new-name", "fresh")
    values = [("title", "STRING", "Hello"), ("count", "INT64", "7"), ("ratio", "DOUBLE", "2.25"),
              ("when", "TIMESTAMP", "2026-01-02T03:04:05Z"), ("link", "REFERENCE", "n01"),
              ("spot", "LOCATION", "1.5, -2.5"), ("labels", "STRING_LIST", "x, y")]
    for i, (name, type_, value) in enumerate(values):
        if i:
            h.click("#new-add-field")
        row = h.all("#new-record .new-field")[i]
        row.find_element(h.By.CSS_SELECTOR, ".new-field-name").send_keys(name)
        Select(row.find_element(h.By.CSS_SELECTOR, ".new-field-type")).select_by_value(type_)
        row.find_element(h.By.CSS_SELECTOR, ".new-field-value").send_keys(value)
    h.click("#new-save")
    h.wait_text("#record-detail .sys-recordName", "fresh")
    r = fetch(h, "fresh")
    assert r["recordType"] == "Note", r
    f = r["fields"]
    assert f["title"]["value"] == "Hello" and f["title"]["type"] == "STRING", f
    assert f["count"]["value"] == 7 and f["count"]["type"] == "INT64", f
    assert f["ratio"]["value"] == 2.25 and f["ratio"]["type"] == "DOUBLE", f
    assert f["when"]["value"] == 1767323045000 and f["when"]["type"] == "TIMESTAMP", f
    assert f["link"]["value"]["recordName"] == "n01" and f["link"]["type"] == "REFERENCE", f
    assert f["spot"]["value"]["latitude"] == 1.5 and f["spot"]["value"]["longitude"] == -2.5 and f["spot"]["type"] == "LOCATION", f
    assert f["labels"]["value"] == ["x", "y"] and f["labels"]["type"] == "STRING_LIST", f


def test_markup_in_a_field_shows_as_text(h):
    seed(h)
    script = "<script>window.__pwned=1</script>"
    img = "<img src=x onerror=window.__pwned=1>"
    h.ck("record", "save", "Note", "--name", "evil1", "title=" + script, "priority:int64=1001", *AS)
    h.ck("record", "save", "Note", "--name", "evil2", "title=" + img, "priority:int64=1002", "tags:string[]=" + img, *AS)
    query(h, "priority > 1000", enter=True)
    wait_rows(h, ["evil1", "evil2"])
    assert h.text('#results tr[data-record="evil1"] td[data-field="title"]') == script
    assert h.text('#results tr[data-record="evil2"] td[data-field="title"]') == img
    assert h.text('#results tr[data-record="evil2"] td[data-field="tags"]') == img
    assert not h.all("#section-records img") and not h.all("#section-records script")
    row = h.find('#results tr[data-record="evil2"]')
    row.click()
    h.wait_text("#record-detail .sys-recordName", "evil2")
    assert value(h, "title") == img
    assert not h.all("#section-records img")
    assert h.script("return typeof window.__pwned") == "undefined"


def test_an_asset_cell_downloads_the_assets_bytes(h):
    import os, tempfile
    path = os.path.join(tempfile.mkdtemp(prefix="ck-console-asset-"), "photo.txt")
    with open(path, "w") as f:
        f.write("the bytes of the asset\n")
    h.ck("record", "save", "Photo", "--name", "p1", "caption=one", "image:asset=@" + path, *AS)
    h.ck("schema", "index", "Photo", "___recordID", "--queryable", *AS)
    h.open()
    h.section("records")
    h.type("#q-type", "Photo")
    h.type("#q-predicate", "")
    h.click("#q-run")
    h.wait(lambda d: rows(h) == ["p1"], "the Photo row")
    link = h.find('#results tr[data-record="p1"] a.asset')
    href = link.get_attribute("href")
    assert link.get_attribute("download") is not None, "the asset link is not a download"
    # The link the page shows gives the asset's bytes (the server's signed download URL).
    status, body = h.http("GET", href[len(h.url):])
    assert status == 200 and body == "the bytes of the asset\n", (status, body)
