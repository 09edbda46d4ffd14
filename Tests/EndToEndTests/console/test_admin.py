"""The console's Schema and admin sections: each lists what the command line seeded, and each action done in the page
is seen by the command line (ck serve runs --no-auth --as alice). Expected values are written by hand."""
import json
import os
import tempfile

from selenium.common.exceptions import StaleElementReferenceException

SCHEMA = """DEFINE SCHEMA
    CREATE ROLE Moderator;
    RECORD TYPE Note (
        title STRING QUERYABLE SORTABLE,
        priority INT64 QUERYABLE,
        GRANT READ, WRITE TO Moderator,
        GRANT READ TO "_world"
    );
"""

seeded = False


def seed(h):
    """Once per run: a schema with a role, users, a zone with a subscription, a record, a share, a quota, a fault."""
    global seeded
    if seeded:
        return
    path = os.path.join(tempfile.mkdtemp(prefix="ck-console-admin-"), "schema.ckdb")
    with open(path, "w") as f:
        f.write(SCHEMA)
    h.ck("schema", "import", path)
    h.ck("user", "create", "bob")
    h.ck("role", "assign", "Moderator", "bob")
    h.ck("--as", "alice", "zone", "create", "Work")
    h.ck("--as", "alice", "-z", "Work", "subscription", "create", "zone", "--id", "work-sub")
    h.ck("--as", "alice", "-z", "Work", "record", "save", "Note", "title=Hi", "priority=3", "--name", "n1")
    h.ck("--as", "alice", "-z", "Work", "share", "create", "n1")
    h.ck("--as", "alice", "-z", "Work", "share", "invite", "n1", "bob", "--permission", "readWrite")
    h.ck("quota", "set", "5MB", "--as", "alice")
    h.ck("fault", "add", "--error", "zoneBusy", "--op", "save", "--record", "never-saved", "--id", "seeded")
    seeded = True


def start(h, section):
    """Seeds, opens the console as alice in her private database, and shows a section."""
    seed(h)
    h.open()
    h.wait(lambda d: any(o.get_attribute("value") == "alice" for o in h.all("#pick-user option")), "alice in #pick-user")
    if h.find("#pick-user").get_attribute("value") != "alice":
        h.select("#pick-user", "alice")
    if h.find("#pick-database").get_attribute("value") != "private":
        h.select("#pick-database", "private")
    el = h.section(section)
    ready(h, section)
    return el


# A section renders again after each action, replacing its rows: an element found a moment before may be gone when
# read, so these reads look again instead of failing on a stale element.
def settled(h, read, what):
    def attempt(d):
        try:
            return read(d)
        except StaleElementReferenceException:
            return None
    return h.wait(attempt, what)


def cells(h, css):
    """The texts of the cells of the displayed row matching css, once it is there."""
    def read(d):
        for row in d.find_elements(h.By.CSS_SELECTOR, css):
            if row.is_displayed():
                return [td.text for td in row.find_elements(h.By.CSS_SELECTOR, "td")]
        return None
    return settled(h, read, css)


def wait_text(h, css, needle):
    def read(d):
        for e in d.find_elements(h.By.CSS_SELECTOR, css):
            if needle in e.text:
                return e.text
        return None
    return settled(h, read, "%r in %s" % (needle, css))


def click(h, css):
    def read(d):
        for e in d.find_elements(h.By.CSS_SELECTOR, css):
            if e.is_displayed():
                e.click()
                return True
        return None
    settled(h, read, "to click " + css)


def ready(h, section):
    """Waits until a section shows its latest list (admin.js and schema.js set data-state)."""
    h.find('#section-%s[data-state="ready"]' % section)


def gone(h, css, what):
    h.wait(lambda d: not d.find_elements(h.By.CSS_SELECTOR, css), what)


def test_schema_lists_types_fields_indexes_roles_grants_and_the_ckdb_text(h):
    start(h, "schema")
    # Field, type, queryable, sortable, searchable.
    assert cells(h, '.schema-type[data-id="Note"] tr[data-id="title"]') == ["title", "STRING", "✓", "✓", "–"]
    assert cells(h, '.schema-type[data-id="Note"] tr[data-id="priority"]') == ["priority", "INT64", "✓", "–", "–"]
    assert cells(h, "#schema-roles tr[data-id=\"Moderator\"]") == ["Moderator"]
    assert cells(h, '#schema-grants tr[data-id="Note/Moderator"]') == ["Note", "Moderator", "READ, WRITE"]
    assert cells(h, '#schema-grants tr[data-id="Note/_world"]') == ["Note", "_world", "READ"]
    ckdb = h.text("#schema-ckdb")
    assert "CREATE ROLE Moderator;" in ckdb and "RECORD TYPE Note (" in ckdb, ckdb


def test_schema_deploy_shows_the_diff_first_then_deploys_to_production(h):
    start(h, "schema")
    click(h, "#schema-diff")
    diff = wait_text(h, "#schema-changes", "+ record type Note")
    assert "+ role Moderator" in diff and "+ field Note.priority INT64 QUERYABLE" in diff, diff
    # The dry run changed nothing: production has no Note yet.
    assert "Note" not in h.ck("-e", "production", "schema", "show")
    click(h, "#schema-deploy")
    wait_text(h, "#schema-changes", "Deployed")
    assert "Note" in h.ck("-e", "production", "schema", "show").split()
    # Deployed: a second dry run finds nothing left, and offers no deploy.
    click(h, "#schema-diff")
    wait_text(h, "#schema-changes", "nothing to deploy")
    assert not h.all("#schema-deploy")[0].is_displayed()


def test_zones_list_what_the_cli_made_and_a_zone_created_in_the_page_reaches_the_store(h):
    start(h, "zones")
    work = cells(h, '#zones-list tr[data-id="Work"]')
    assert work[0] == "Work" and work[1].startswith("_") and work[2] == "atomic, sharing", work
    h.find('#zones-list tr[data-id="_defaultZone"]')
    h.find('#zones-all tr[data-id="Work"][data-user="alice"][data-database="private"]')
    h.find('#zones-all tr[data-id="_defaultZone"][data-user="bob"]')
    assert "null" not in h.text("#section-zones").split(), h.text("#section-zones")
    h.type("#zones-name", "Trips")
    click(h, "#zones-create")
    h.find('#zones-list tr[data-id="Trips"]')
    assert "Trips" in h.ck("--as", "alice", "zone", "list").split()
    # Delete asks once more, then the zone is gone from the page and the store.
    click(h, '#zones-list tr[data-id="Trips"] .zones-delete')
    wait_text(h, '#zones-list tr[data-id="Trips"] .zones-delete', "Really")
    click(h, '#zones-list tr[data-id="Trips"] .zones-delete')
    gone(h, '#zones-list tr[data-id="Trips"]', "Trips to leave the zone list")
    assert "Trips" not in h.ck("--as", "alice", "zone", "list").split()


def test_subscriptions_list_create_and_delete(h):
    start(h, "subscriptions")
    assert cells(h, '#subscriptions-list tr[data-id="work-sub"]')[:2] == ["work-sub", "zone"]
    h.find('#subscriptions-all tr[data-id="work-sub"][data-user="alice"][data-database="private"]')
    # Nothing unreadable: no stray "null" where that list would be.
    assert "null" not in h.text("#section-subscriptions").split(), h.text("#section-subscriptions")
    # A query subscription: Note where priority >= 5.
    h.select("#subscriptions-type", "query")
    h.type("#subscriptions-id", "hot")
    h.type("#subscriptions-record-type", "Note")
    h.type("#subscriptions-field", "priority")
    h.select("#subscriptions-comparator", "GREATER_THAN_OR_EQUALS")
    h.type("#subscriptions-value", "5")
    h.type("#subscriptions-zone", "Work")
    click(h, "#subscriptions-create")
    row = cells(h, '#subscriptions-list tr[data-id="hot"]')
    assert row[:3] == ["hot", "query", "Note"] and row[4] == "Work", row
    shown = h.ck("--as", "alice", "subscription", "show", "hot")
    assert "Note where %K >= %@ [priority, int64:5] in zone Work on create,update,delete" in shown, shown
    # A zone subscription, then deleted.
    h.select("#subscriptions-type", "zone")
    h.type("#subscriptions-id", "page-sub")
    h.type("#subscriptions-zone", "Work")
    click(h, "#subscriptions-create")
    h.find('#subscriptions-list tr[data-id="page-sub"]')
    assert "page-sub" in h.ck("--as", "alice", "subscription", "list").split()
    click(h, '#subscriptions-list tr[data-id="page-sub"] .subscriptions-delete')
    click(h, '#subscriptions-list tr[data-id="page-sub"] .subscriptions-delete')
    gone(h, '#subscriptions-list tr[data-id="page-sub"]', "page-sub to leave the list")
    assert "page-sub" not in h.ck("--as", "alice", "subscription", "list").split()


def test_notifications_list_with_their_payloads(h):
    start(h, "notifications")
    rows = [r for r in h.all("#notifications-list tbody tr") if "work-sub" in r.text]
    assert rows, h.text("#section-notifications")
    tds = [td.text for td in rows[0].find_elements(h.By.CSS_SELECTOR, "td")]
    assert tds[1:5] == ["alice", "private", "work-sub", "recordZone"], tds
    # Unread and alice's own (alice is picked): the cell offers to mark it read.
    assert tds[7] == "Work" and tds[8] == "Mark read", tds
    rows[0].find_element(h.By.CSS_SELECTOR, "details summary").click()
    payload = rows[0].find_element(h.By.CSS_SELECTOR, "details pre").text
    assert '"sid": "work-sub"' in payload and '"zid": "Work"' in payload, payload


def test_shares_list_with_participants(h):
    start(h, "shares")
    row = cells(h, '#shares-list tr[data-id="share-n1"]')
    assert row[1:5] == ["Work", "alice", "n1", "none"], row
    assert row[5].startswith("https://www.icloud.com/share/"), row
    assert h.text('#shares-list tr[data-id="share-n1"] .participants li[data-id="alice"]') == "alice (owner, readWrite, accepted)"
    assert h.text('#shares-list tr[data-id="share-n1"] .participants li[data-id="bob"]') == "bob (privateUser, readWrite, pending)"


def test_users_and_roles_list_create_account_state_assign_and_revoke(h):
    start(h, "users")
    h.find('#users-list tr[data-id="alice"]')
    h.find('#users-list tr[data-id="bob"] .role[data-id="Moderator"]')
    assert cells(h, '#users-roles tr[data-id="Moderator"]') == ["Moderator", "bob"]
    h.type("#users-name", "carol")
    click(h, "#users-create")
    h.find('#users-list tr[data-id="carol"]')
    assert "carol" in h.ck("user", "list").split()
    # carol signs out of iCloud.
    h.select('#users-list tr[data-id="carol"] .users-status', "noAccount")
    click(h, '#users-list tr[data-id="carol"] .users-set-account')
    wait_text(h, "#toast", "carol's account is noAccount")
    ready(h, "users")
    h.wait(lambda d: "noAccount" in h.ck("--as", "carol", "account", "status"), "carol's account to be noAccount")
    # Moderator moves from bob to carol.
    h.select('#users-list tr[data-id="carol"] .users-role', "Moderator")
    click(h, '#users-list tr[data-id="carol"] .users-assign')
    h.find('#users-list tr[data-id="carol"] .role[data-id="Moderator"]')
    click(h, '#users-list tr[data-id="bob"] .role[data-id="Moderator"] .users-revoke')
    gone(h, '#users-list tr[data-id="bob"] .role[data-id="Moderator"]', "bob to lose Moderator")
    assert cells(h, '#users-roles tr[data-id="Moderator"]') == ["Moderator", "carol"]
    assert h.ck("role", "list").split() == ["Moderator", "carol"], h.ck("role", "list")


def test_quotas_show_usage_and_limits_and_set_one(h):
    start(h, "quotas")
    assert cells(h, '#quotas-list tr[data-id="alice"]')[:2] == ["alice", "5 MB"]
    assert cells(h, '#quotas-list tr[data-id="public"]')[:2] == ["public database", "none"]
    h.select("#quotas-target", "bob")
    h.type("#quotas-value", "1MB")
    click(h, "#quotas-set")
    wait_text(h, '#quotas-list tr[data-id="bob"]', "1 MB")
    assert "1000000" in h.ck("quota", "show", "--as", "bob").split()


def test_faults_add_in_the_page_refuses_the_next_request_then_clear_one_and_all(h):
    start(h, "faults")
    assert cells(h, '#faults-list tr[data-id="seeded"]')[:4] == ["seeded", "zoneBusy (23)", "save", "recordName never-saved"]
    h.select("#faults-error", "serviceUnavailable")
    h.select("#faults-op", "zone")
    h.type("#faults-retry-after", "3")
    h.type("#faults-id", "page-fault")
    click(h, "#faults-add")
    row = cells(h, '#faults-list tr[data-id="page-fault"]')
    assert row[:3] == ["page-fault", "serviceUnavailable (6)", "zone"] and row[7] == "3 s", row
    assert "page-fault" in h.ck("fault", "list")
    # The zones section's next zones/list is refused with the rule's error, as CloudKit names it.
    h.section("zones")
    ready(h, "zones")
    error = wait_text(h, "#error", "TRY_AGAIN_LATER")
    assert "page-fault" in error, error
    h.section("faults")
    ready(h, "faults")
    click(h, '#faults-list tr[data-id="page-fault"] .faults-clear-one')
    gone(h, '#faults-list tr[data-id="page-fault"]', "page-fault to leave the list")
    assert "page-fault" not in h.ck("fault", "list")
    h.section("zones")
    ready(h, "zones")
    h.find('#zones-list tr[data-id="Work"]')
    # The refusal shown before no longer describes the page.
    assert not h.all("#error")[0].is_displayed(), h.all("#error")[0].text
    # Clear all asks once more.
    h.section("faults")
    ready(h, "faults")
    click(h, "#faults-clear")
    click(h, "#faults-clear")
    h.find("#faults-list-empty")
    assert h.ck("fault", "list").strip() == ""


def test_a_refused_action_shows_cloudkits_error_and_changes_nothing(h):
    start(h, "faults")
    h.type("#faults-probability", "2")
    click(h, "#faults-add")
    error = wait_text(h, "#error", "BAD_REQUEST")
    assert "probability: expected a number between 0 and 1" in error, error
    assert h.ck("fault", "list").strip() == ""
    # A zone refused in place inside a 200 answer is shown too: the public database has no custom zones.
    h.select("#pick-database", "public")
    h.section("zones")
    ready(h, "zones")
    h.type("#zones-name", "Nope")
    click(h, "#zones-create")
    error = wait_text(h, "#error", "BAD_REQUEST")
    assert "zone Nope: You can't create custom zones in a public database" in error, error
    h.select("#pick-database", "private")
    assert "Nope" not in h.ck("--as", "alice", "zone", "list").split()


def test_markup_in_a_stored_value_shows_as_text(h):
    seed(h)
    markup = "<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>"
    h.ck("--as", "alice", "-z", "Work", "subscription", "create", "zone", "--id", "markup", "--alert", markup)
    start(h, "subscriptions")
    assert cells(h, '#subscriptions-list tr[data-id="markup"]')[6] == markup
    assert h.all('#subscriptions-list tr[data-id="markup"] img, #section-subscriptions script') == []
    assert h.script("return window.__pwned") is None


def test_share_actions_act_as_the_picked_user(h):
    seed(h)
    h.ck("--as", "alice", "-z", "Work", "record", "save", "Note", "title=Pantry", "--name", "n2")
    start(h, "shares")
    # alice shares n2 in the page; the command line sees the share.
    h.type("#shares-root", "n2")
    h.type("#shares-zone", "Work")
    click(h, "#shares-create")
    row = '#shares-list tr[data-id="share-n2"]'
    assert cells(h, row)[1:5] == ["Work", "alice", "n2", "none"]
    assert "share-n2" in h.ck("--as", "alice", "share", "list", "-o", "plain")
    # alice invites bob, read-write: pending until he accepts.
    h.type(row + " .shares-invite-user", "bob")
    h.select(row + " .shares-invite-permission", "readWrite")
    click(h, row + " .shares-invite")
    wait_text(h, row + ' .participants li[data-id="bob"]', "bob (privateUser, readWrite, pending)")
    # bob, picked in the top bar, may accept but not invite; the command line sees him accepted.
    h.select("#pick-user", "bob")
    ready(h, "shares")
    wait_text(h, "#section-shares", "Actions act as bob")
    assert not h.all(row + " .shares-invite")
    click(h, row + " .shares-accept")
    wait_text(h, row + ' .participants li[data-id="bob"]', "bob (privateUser, readWrite, accepted)")
    line = [l for l in h.ck("--as", "bob", "share", "list", "-o", "plain").splitlines() if "share-n2" in l]
    assert len(line) == 1 and "accepted" in line[0], line
    h.find(row + " .shares-leave")
    # alice removes bob: he is no participant any more.
    h.select("#pick-user", "alice")
    ready(h, "shares")
    wait_text(h, "#section-shares", "Actions act as alice")
    h.select(row + " .shares-remove-user", "bob")
    click(h, row + " .shares-remove")
    gone(h, row + ' .participants li[data-id="bob"]', "bob to leave share-n2's participants")
    assert "bob" not in h.ck("--as", "alice", "-z", "Work", "share", "show", "n2", "-o", "plain")
    # Nobody signed in: the actions are off, with a note.
    h.select("#pick-user", "")
    ready(h, "shares")
    h.find("#shares-anonymous")
    assert not h.find("#shares-create").is_enabled()
    assert not h.all(row + " .shares-invite")
    h.select("#pick-user", "alice")


def test_notifications_marked_read_and_a_zone_purged_as_the_picked_user(h):
    start(h, "notifications")
    notes = json.loads(h.ck("--as", "alice", "notification", "list", "-o", "json"))["notifications"]
    unread = [n["notificationID"] for n in notes if not n.get("read")]
    assert unread, notes
    click(h, '#notifications-list tr[data-id="%s"] .notifications-read' % unread[0])
    def unread_now():
        return [n["notificationID"] for n in
                json.loads(h.ck("--as", "alice", "notification", "list", "--unread", "-o", "json"))["notifications"]]
    h.wait(lambda d: unread[0] not in unread_now(), "the notification marked read in the store")
    h.wait(lambda d: (cells(h, '#notifications-list tr[data-id="%s"]' % unread[0]) or [""] * 9)[8] == "read",
           "the row to say read")
    # The zone purge: Work goes from alice's zones, as ck zone purge does it.
    h.ck("--as", "alice", "zone", "create", "Scratch")
    h.ck("--as", "alice", "-z", "Scratch", "record", "save", "Note", "title=temp", "--name", "s1")
    el = h.section("zones")
    ready(h, "zones")
    click(h, '#zones-list tr[data-id="Scratch"] .zones-purge')
    wait_text(h, '#zones-list tr[data-id="Scratch"] .zones-purge', "Really")
    click(h, '#zones-list tr[data-id="Scratch"] .zones-purge')
    gone(h, '#zones-list tr[data-id="Scratch"]', "Scratch to leave the zone list")
    assert "Scratch" not in h.ck("--as", "alice", "zone", "list").split()
