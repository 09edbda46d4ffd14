"""The console loads from ck serve with no external resource and no browser console error."""


def test_page_loads_offline_with_its_own_files_only(h):
    h.open()
    assert h.driver.title == "ck console", h.driver.title
    # Every resource the page loaded came from ck serve itself.
    urls = h.script("return performance.getEntriesByType('resource').map(e => e.name)")
    outside = [u for u in urls if not u.startswith(h.url + "/")]
    assert not outside, outside
    for picker in ("#pick-container", "#pick-environment", "#pick-database", "#pick-zone", "#pick-user"):
        h.find(picker)


def test_pickers_show_the_store_and_the_no_auth_user(h):
    h.ck("container", "create", "iCloud.com.example.second")
    h.open()
    containers = [o.get_attribute("value") for o in h.all("#pick-container option")]
    assert "iCloud.com.example.second" in containers, containers
    users = [o.get_attribute("value") for o in h.all("#pick-user option")]
    # The server runs --no-auth --as alice; anonymous is always a choice.
    assert "alice" in users and "" in users, users
    assert h.find("#pick-user").get_attribute("value") == "alice"


def test_a_failed_request_shows_cloudkits_error(h):
    h.open()
    h.script("ck.ws('records/query', {query: {recordType: 'Note', filterBy: 'not json'}}).catch(ck.showError)")
    text = h.wait_text("#error", "BAD_REQUEST")
    assert "filterBy" in text or "query" in text, text
