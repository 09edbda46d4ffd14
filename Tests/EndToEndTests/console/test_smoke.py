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
