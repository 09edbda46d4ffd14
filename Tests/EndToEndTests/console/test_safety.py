"""What the console shows is text, never markup; the page fits a wide and a narrow window, works from the keyboard and
has a dark theme. ck serve runs with --no-auth --as alice on a fresh store."""

CONTAINER = "iCloud.ck.default"
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
# Names as odd as CloudKit allows: a record type and field names are identifiers, zone and record names printable ASCII.
TYPE = "Odd__Type_9"
ZONE = "zone<i>&\"odd'"
RECORD = "<img src=x onerror=window.__pwned=1>"



def shows(h, css, needle):
    return h.shows(css, needle)

def sections(h):
    """The sections the page offers, by their nav buttons."""
    names = h.script("return Array.from(document.querySelectorAll('#sections [data-section]')).map(b => b.dataset.section)")
    assert "requests" in names and "records" in names, names
    return names


def pwned(h):
    return h.script("return typeof window.__pwned === 'undefined' ? null : window.__pwned")


def assert_inert(h, where):
    assert pwned(h) is None, "window.__pwned is set after %s" % where
    # No element the data could have made: the page's own five scripts only, no image, no inline handler.
    scripts = h.script("return Array.from(document.scripts).map(s => s.getAttribute('src'))")
    assert all(s and s.startswith("/_ck/console/") for s in scripts), scripts
    assert h.script("return document.querySelectorAll('img[src=x], [onerror], [onmouseover]').length") == 0, \
        "markup from the data became elements after %s" % where


def test_markup_in_fields_and_names_shows_as_text(h):
    h.ck("--as", "alice", "zone", "create", ZONE)
    h.ck("--as", "alice", "record", "save", TYPE, "--name", RECORD, "script_field=" + SCRIPT, "img_field=" + IMG)
    h.ck("--as", "alice", "-z", ZONE, "record", "save", TYPE, "--name", "in-odd-zone", "script_field=" + SCRIPT)
    h.open()
    assert_inert(h, "loading the page")

    # Records: the result table and the record's detail show the values as they are.
    h.section("records")
    h.type("#q-type", TYPE)
    h.type("#q-predicate", "script_field BEGINSWITH '<'")
    h.click("#q-run")
    shows(h, "table#results", SCRIPT)
    shows(h, "table#results", IMG)
    shows(h, "table#results", RECORD)
    assert_inert(h, "the query")
    h.script("document.querySelector('table#results tr[data-record]').click()")
    h.find("#record-detail")
    h.wait(lambda d: h.script("""return Array.from(document.querySelectorAll('#record-detail [data-field]'))
        .some(e => e.value === arguments[0] || e.textContent === arguments[0])""", SCRIPT),
        "the script field's value in the record's detail")
    assert_inert(h, "opening the record")

    # The zone picker lists the odd zone by its name.
    h.wait(lambda d: ZONE in h.script("return Array.from(document.querySelectorAll('#pick-zone option')).map(o => o.textContent)"),
           "the odd zone in the zone picker")

    # Every other section, shown once each: the names appear as text wherever they are listed.
    for name in sections(h):
        h.section(name)
        assert_inert(h, "showing " + name)
    h.section("zones")
    shows(h, "#section-zones", ZONE)
    h.section("schema")
    shows(h, "#section-schema", TYPE)
    shows(h, "#section-schema", "script_field")
    assert_inert(h, "the sections")


def test_request_bodies_show_markup_as_text(h):
    h.open()
    h.section("requests")
    status, answer = h.http("POST", "/database/1/%s/development/private/records/modify" % CONTAINER,
                            {"operations": [{"operationType": "create", "record": {
                                "recordType": TYPE, "recordName": "via-http",
                                "fields": {"script_field": {"value": SCRIPT}, "img_field": {"value": IMG}}}}]})
    assert status == 200 and "serverErrorCode" not in answer["records"][0], answer
    seq = h.wait(lambda d: h.script("""const r = Array.from(document.querySelectorAll('#requests tbody tr[data-seq]'))
        .find(tr => tr.querySelector('.operation').textContent === 'records/modify');
        return r ? r.dataset.seq : null"""), "the records/modify row")
    h.click('#requests tbody tr[data-seq="%s"]' % seq)
    shows(h, "#request-detail .request-body", SCRIPT)
    # In JSON text the quotes inside the value are escaped: the body shows them so, as text.
    shows(h, "#request-detail .request-body", '<img src=x onerror=\\"window.__pwned=1\\">')
    shows(h, "#request-detail .response-body", SCRIPT)
    assert_inert(h, "the request's bodies")


def test_no_horizontal_overflow_wide_or_narrow(h):
    try:
        for width in (1280, 420):
            h.driver.set_window_size(width, 800)
            h.open()
            inner = h.script("return window.innerWidth")
            assert inner <= width, (width, inner)
            for name in sections(h):
                h.section(name)
                h.find("#section-" + name)
                scroll = h.script("return document.documentElement.scrollWidth")
                inner = h.script("return window.innerWidth")
                assert scroll <= inner, "at %d px the %s section is %d px wide in a %d px window" % (width, name, scroll, inner)
    finally:
        h.driver.set_window_size(1280, 800)


def test_tab_reaches_the_sections_and_enter_opens_one(h):
    from selenium.webdriver.common.action_chains import ActionChains
    h.open()
    h.script("document.activeElement && document.activeElement.blur()")
    target = '#sections [data-section="requests"]'
    for _ in range(80):
        if h.script("return document.activeElement !== null && document.activeElement.matches(arguments[0])", target):
            break
        ActionChains(h.driver).send_keys(h.Keys.TAB).perform()
    else:
        raise AssertionError("80 presses of Tab never reached the Requests button (focus: %s)" %
                             h.script("return document.activeElement.outerHTML.slice(0, 120)"))
    ActionChains(h.driver).send_keys(h.Keys.ENTER).perform()
    h.find("#section-requests table#requests")


BACKGROUND = """const b = getComputedStyle(document.body).backgroundColor;
    return b === 'rgba(0, 0, 0, 0)' || b === 'transparent' ? getComputedStyle(document.documentElement).backgroundColor : b"""


def test_the_theme_button_switches_the_background(h):
    h.open()
    before = h.script(BACKGROUND)
    h.click("#theme")
    h.wait(lambda d: h.script(BACKGROUND) != before, "the background to change from %s" % before)
    h.click("#theme")
    h.wait(lambda d: h.script(BACKGROUND) == before, "the background to come back to %s" % before)
