"use strict";
// The admin sections (docs/console.md): zones, subscriptions, notifications, shares, users and roles, quotas and
// faults, each a list with the actions `ck zone|subscription|notification|share|user|role|account|quota|fault` have.
// Lists come from the /_ck/ control plane (every user's, as the developer sees them) and from Web Services (what the
// picked user sees in the picked database); actions go through the same routes the CLI's work goes through.
// DOM through ck.h and text only (CSP, escaping).
(function () {
  const h = ck.h;

  // ---------------------------------------------------------------- helpers

  /// Registers a section whose render drops a stale answer: a newer render (a picker changed) wins.
  function section(id, title, build) {
    let generation = 0;
    const render = async (el) => {
      const mine = ++generation;
      const head = h("div", { class: "section-head" },
        h("h2", null, title),
        h("button", { id: id + "-refresh", type: "button", onclick: () => render(el) }, "Refresh"));
      // data-state tells a script (and the tests) whether the list on show is the latest one.
      el.dataset.state = "loading";
      // A new attempt: an error shown for an earlier one no longer describes the page.
      ck.clearError();
      el.replaceChildren(head, h("p", { class: "muted" }, "Loading…"));
      const body = await build(() => mine !== generation, () => render(el));
      if (mine !== generation || body === null) return;
      // replaceChildren would show a null (a part with nothing to show) as the text "null".
      el.replaceChildren(head, ...body.filter((part) => part !== null && part !== undefined));
      el.dataset.state = "ready";
    };
    ck.section(id, title, render);
  }

  /// Runs a request; on failure shows CloudKit's error and answers undefined.
  async function attempt(promise) {
    try {
      return await promise;
    } catch (e) {
      ck.showError(e);
      return undefined;
    }
  }

  /// An error one entry of a 200 answer carries (a zone or subscription refused in place), as ck.showError shows it.
  function entryError(entry, what) {
    return new ck.CKError(200, { serverErrorCode: entry.serverErrorCode, reason: what + ": " + (entry.reason || ""), uuid: entry.uuid });
  }

  /// A list as a table whose rows carry data-id (and other data-*) from tag(item); a note when there is nothing.
  function list(id, columns, items, tag, empty) {
    if (items.length === 0) return h("p", { class: "empty", id: id + "-empty" }, empty);
    const table = ck.table(columns, items, (item) => {
      const data = tag(item), attrs = {};
      for (const k of Object.keys(data)) attrs["data-" + k] = data[k];
      return attrs;
    });
    table.id = id;
    table.classList.add("wide");
    // A narrow window scrolls the table sideways instead of crushing its columns.
    return h("div", { class: "scroll" }, table);
  }

  /// A button that asks once more before it acts (no window.confirm: it would block the page and its tests).
  function armed(label, cls, action) {
    const b = h("button", { type: "button", class: cls + " danger" }, label);
    b.addEventListener("click", async () => {
      if (b.dataset.armed !== "1") {
        b.dataset.armed = "1";
        b.textContent = "Really " + label.toLowerCase() + "?";
        return;
      }
      b.disabled = true;
      await action();
      b.disabled = false;
    });
    b.addEventListener("blur", () => { b.dataset.armed = ""; b.textContent = label; });
    return b;
  }

  function input(id, label, placeholder, type) {
    const i = h("input", { id: id, name: id, type: type || "text", placeholder: placeholder || "" });
    return { el: i, label: h("label", { for: id }, label + " ", i) };
  }

  function selectOf(id, label, options, value) {
    const s = h("select", { id: id, name: id }, options.map((o) => typeof o === "string"
      ? h("option", { value: o }, o) : h("option", { value: o.value }, o.label)));
    if (value !== undefined) s.value = value;
    return { el: s, label: h("label", { for: id }, label + " ", s) };
  }

  function checkbox(id, label) {
    const c = h("input", { id: id, name: id, type: "checkbox" });
    return { el: c, label: h("label", { for: id, class: "check" }, c, " " + label) };
  }

  /// A form whose submit button is #<id>; Enter in a field submits it; it never navigates.
  function form(id, legend, fields, submitLabel, action) {
    const submit = h("button", { id: id, type: "submit" }, submitLabel);
    const f = h("form", { class: "action-form", "aria-label": legend },
      h("fieldset", null, h("legend", null, legend), fields, submit));
    return onSubmit(f, submit, action);
  }

  /// Runs action on submit with the button disabled meanwhile (one request at a time), clearing an old error.
  function onSubmit(f, submit, action) {
    f.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      ck.clearError();
      submit.disabled = true;
      try { await action(); } finally { submit.disabled = false; }
    });
    return f;
  }

  function who() {
    return ck.state.user ? ck.state.user : "anonymous";
  }

  function bytes(n) {
    if (n === null || n === undefined) return "none";
    const units = ["bytes", "KB", "MB", "GB", "TB"];
    let v = n, u = 0;
    while (v >= 1000 && u < units.length - 1) { v /= 1000; u++; }
    const text = u === 0 ? n + " bytes" : (Math.round(v * 10) / 10) + " " + units[u];
    return h("span", { title: n + " bytes" }, text);
  }

  function counts(o) {
    const keys = Object.keys(o || {}).sort();
    return keys.length === 0 ? "–" : keys.map((k) => k + ": " + o[k]).join(", ");
  }

  function zoneName(z) {
    return z && z.zoneID ? z.zoneID.zoneName : (z && z.zoneName) || "";
  }

  function unreadable(answer) {
    const u = answer && answer.unreadable || [];
    if (u.length === 0) return null;
    return h("ul", { class: "unreadable" }, u.map((x) => h("li", { "data-id": x.user }, x.user + ": " + x.reason)));
  }

  /// A number typed in a field as JSON takes it; text that is not a number is sent as it is, for the server to
  /// refuse by name as `ck fault add` refuses it.
  function numberOr(text) {
    const t = text.trim();
    if (t === "") return undefined;
    const n = Number(t);
    return Number.isFinite(n) ? n : t;
  }

  // ---------------------------------------------------------------- zones

  // Web Services names a zone's capabilities by flags; shown as `ck zone list` names them.
  function wireCapabilities(z) {
    const c = [];
    if (z.atomic) c.push("atomic");
    if (z.isEligibleForHierarchicalShare) c.push("sharing");
    if (z.isEligibleForZoneShare) c.push("zoneWideSharing");
    return c.join(", ");
  }

  section("zones", "Zones", async (stale, again) => {
    const mine = await attempt(ck.ws("zones/list", {}));
    const all = await attempt(ck.control("GET", "/_ck/zones"));
    if (stale()) return null;
    const name = input("zones-name", "Zone name", "e.g. Notes");
    const create = form("zones-create", "Create a zone as " + who() + " in the " + ck.state.database + " database",
      [name.label], "Create zone", async () => {
        const zone = { zoneID: { zoneName: name.el.value.trim() } };
        const answer = await attempt(ck.ws("zones/modify", { operations: [{ operationType: "create", zone: zone }] }));
        if (!answer) return;
        const z = (answer.zones || [])[0] || {};
        if (z.serverErrorCode) { ck.showError(entryError(z, "zone " + zone.zoneID.zoneName)); return; }
        ck.toast("Zone " + zoneName(z) + " created");
        again();
      });
    const out = [
      h("p", { class: "muted" }, "Zones " + who() + " sees in the " + ck.state.database + " database (ck zone list)."),
      mine === undefined ? h("p", { class: "empty" }, "The zones could not be listed.")
        : list("zones-list", [
          { title: "Zone", get: (z) => zoneName(z) },
          { title: "Owner", get: (z) => (z.zoneID && z.zoneID.ownerRecordName) || "" },
          { title: "Capabilities", get: (z) => wireCapabilities(z) },
          { title: "", get: (z) => zoneName(z) === "_defaultZone" ? "" : h("span", { class: "actions" }, armed("Delete", "zones-delete", async () => {
            const answer = await attempt(ck.ws("zones/modify", { operations: [{ operationType: "delete", zone: { zoneID: z.zoneID } }] }));
            if (!answer) return;
            const r = (answer.zones || [])[0] || {};
            if (r.serverErrorCode) { ck.showError(entryError(r, "zone " + zoneName(z))); return; }
            ck.toast("Zone " + zoneName(z) + " deleted");
            again();
          }),
          // As the user deletes it from iCloud settings (ck zone purge): Web Services has no route for it.
          ck.state.database === "private" && ck.state.user ? armed("Purge", "zones-purge", async () => {
            const answer = await attempt(ck.control("POST", "/_ck/zones/purge", { user: ck.state.user, zone: zoneName(z) }));
            if (!answer) return;
            ck.toast("Zone " + zoneName(z) + " purged (" + answer.purged + " records)");
            again();
          }) : null) },
        ], mine.zones || [], (z) => ({ id: zoneName(z) }), "No zones."),
      create,
      h("h3", null, "Every user's zones"),
      all === undefined ? h("p", { class: "empty" }, "Every user's zones could not be listed.")
        : list("zones-all", [
          { title: "User", get: (z) => z.user === null ? "(public)" : z.user },
          { title: "Database", get: (z) => z.database },
          { title: "Zone", get: (z) => z.zoneName },
          { title: "Owner", get: (z) => z.ownerRecordName },
          { title: "Capabilities", get: (z) => (z.capabilities || []).join(", ") },
        ], all.zones || [], (z) => ({ id: z.zoneName, user: z.user === null ? "" : z.user, database: z.database }), "No zones."),
      unreadable(all),
    ];
    return out;
  });

  // ---------------------------------------------------------------- subscriptions

  function filterText(q) {
    if (!q) return "";
    // ck keeps a query subscription's filters as a predicate over %K and %@ with its arguments beside it.
    if (q.predicate) return q.predicate + (q.arguments && q.arguments.length ? " [" + q.arguments.join(", ") + "]" : "");
    const f = q.filterBy || [];
    if (f.length === 0) return "TRUEPREDICATE";
    return f.map((x) => (x.fieldName || x.systemFieldName) + " " + x.comparator + " " +
      JSON.stringify(x.fieldValue ? x.fieldValue.value : null)).join(" AND ");
  }

  section("subscriptions", "Subscriptions", async (stale, again) => {
    const mine = await attempt(ck.ws("subscriptions/list", {}));
    const all = await attempt(ck.control("GET", "/_ck/subscriptions"));
    if (stale()) return null;
    const kind = selectOf("subscriptions-type", "Type", [{ value: "query", label: "query" }, { value: "zone", label: "zone" }], "query");
    const id = input("subscriptions-id", "ID", "optional");
    const type = input("subscriptions-record-type", "Record type", "query: e.g. Note");
    const field = input("subscriptions-field", "Field", "optional filter");
    const comparator = selectOf("subscriptions-comparator", "Comparator",
      ["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS", "BEGINS_WITH"], "EQUALS");
    const value = input("subscriptions-value", "Value", "e.g. 5 or text");
    const zone = input("subscriptions-zone", "Zone", "query: every zone if empty");
    zone.el.value = ck.state.zone && ck.state.zone !== "_defaultZone" ? ck.state.zone : "";
    const onCreate = checkbox("subscriptions-on-create", "on create");
    const onUpdate = checkbox("subscriptions-on-update", "on update");
    const onDelete = checkbox("subscriptions-on-delete", "on delete");
    for (const c of [onCreate, onUpdate, onDelete]) c.el.checked = true;
    const once = checkbox("subscriptions-fires-once", "fires once");
    const alert = input("subscriptions-alert", "Alert", "optional alert text");
    const create = form("subscriptions-create", "Create a subscription as " + who() + " in the " + ck.state.database + " database",
      [kind.label, id.label, type.label, field.label, comparator.label, value.label, zone.label,
        onCreate.label, onUpdate.label, onDelete.label, once.label, alert.label], "Create subscription", async () => {
        const s = { subscriptionType: kind.el.value };
        if (id.el.value.trim()) s.subscriptionID = id.el.value.trim();
        if (zone.el.value.trim()) s.zoneID = { zoneName: zone.el.value.trim() };
        if (kind.el.value === "query") {
          s.query = { recordType: type.el.value.trim() };
          if (field.el.value.trim()) {
            const v = numberOr(value.el.value);
            s.query.filterBy = [{ fieldName: field.el.value.trim(), comparator: comparator.el.value,
                                  fieldValue: { value: v === undefined ? "" : v } }];
          }
          s.firesOn = [[onCreate, "create"], [onUpdate, "update"], [onDelete, "delete"]].filter((p) => p[0].el.checked).map((p) => p[1]);
          s.firesOnce = once.el.checked;
        }
        if (alert.el.value) s.notificationInfo = { alertBody: alert.el.value };
        const answer = await attempt(ck.ws("subscriptions/modify", { operations: [{ operationType: "create", subscription: s }] }));
        if (!answer) return;
        const r = (answer.subscriptions || [])[0] || {};
        if (r.serverErrorCode) { ck.showError(entryError(r, "subscription")); return; }
        ck.toast("Subscription " + r.subscriptionID + " created");
        again();
      });
    return [
      h("p", { class: "muted" }, "Subscriptions of " + who() + " in the " + ck.state.database + " database (ck subscription list)."),
      mine === undefined ? h("p", { class: "empty" }, "The subscriptions could not be listed.")
        : list("subscriptions-list", [
          { title: "ID", get: (s) => s.subscriptionID },
          { title: "Type", get: (s) => s.subscriptionType },
          { title: "Record type", get: (s) => (s.query && s.query.recordType) || "" },
          { title: "Filter", get: (s) => s.query ? filterText(s.query) : "" },
          { title: "Zone", get: (s) => s.zoneID ? s.zoneID.zoneName : (s.subscriptionType === "query" ? "every zone" : "") },
          { title: "Fires on", get: (s) => (s.firesOn || []).join(", ") + (s.firesOnce ? " (once)" : "") },
          { title: "Alert", get: (s) => (s.notificationInfo && s.notificationInfo.alertBody) || "" },
          { title: "", get: (s) => armed("Delete", "subscriptions-delete", async () => {
            const answer = await attempt(ck.ws("subscriptions/modify",
              { operations: [{ operationType: "delete", subscription: { subscriptionID: s.subscriptionID } }] }));
            if (!answer) return;
            const r = (answer.subscriptions || [])[0] || {};
            if (r.serverErrorCode) { ck.showError(entryError(r, "subscription " + s.subscriptionID)); return; }
            ck.toast("Subscription " + s.subscriptionID + " deleted");
            again();
          }) },
        ], mine.subscriptions || [], (s) => ({ id: s.subscriptionID }), "No subscriptions."),
      create,
      h("h3", null, "Every user's subscriptions"),
      all === undefined ? h("p", { class: "empty" }, "Every user's subscriptions could not be listed.")
        : list("subscriptions-all", [
          { title: "User", get: (s) => s.user },
          { title: "Database", get: (s) => s.database },
          { title: "ID", get: (s) => s.subscriptionID },
          { title: "Type", get: (s) => s.subscriptionType },
          { title: "Record type", get: (s) => (s.query && s.query.recordType) || s.recordType || "" },
          { title: "Predicate", get: (s) => s.query ? filterText(s.query) : "" },
          { title: "Zone", get: (s) => s.zoneID ? s.zoneID.zoneName : "" },
        ], all.subscriptions || [], (s) => ({ id: s.subscriptionID, user: s.user, database: s.database }), "No subscriptions."),
      unreadable(all),
    ];
  });

  // ---------------------------------------------------------------- notifications

  function payload(n) {
    const pre = h("pre", { class: "code" });
    pre.textContent = JSON.stringify({ notification: n.notification, push: n.push }, null, 2);
    return h("details", { class: "payload" }, h("summary", null, "payload"), pre);
  }

  /// Marks the picked user's notifications read (ck notification read): the given IDs, or all of them.
  async function markRead(ids, again) {
    const body = ids ? { user: ck.state.user, ids: ids } : { user: ck.state.user, all: true };
    const answer = await attempt(ck.control("POST", "/_ck/notifications/read", body));
    if (!answer) return;
    ck.toast((answer.read || []).length + " marked read");
    again();
  }

  section("notifications", "Notifications", async (stale, again) => {
    const answer = await attempt(ck.control("GET", "/_ck/notifications"));
    if (stale()) return null;
    if (answer === undefined) return [h("p", { class: "empty" }, "The notifications could not be listed.")];
    const items = (answer.notifications || []).slice().reverse();
    const mine = (n) => ck.state.user && n.user === ck.state.user;
    return [
      h("p", { class: "muted" }, "Every user's notifications in " + ck.state.environment + ", newest first (ck notification list)."),
      ck.state.user ? h("div", { class: "actions" }, h("button", { id: "notifications-read-all", type: "button",
        onclick: () => markRead(null, again) }, "Mark all of " + ck.state.user + "'s read")) : null,
      list("notifications-list", [
        { title: "Time", get: (n) => n.time },
        { title: "User", get: (n) => n.user },
        { title: "Database", get: (n) => n.database },
        { title: "Subscription", get: (n) => n.subscriptionID },
        { title: "Type", get: (n) => n.notificationType },
        { title: "Reason", get: (n) => n.reason || "" },
        { title: "Record", get: (n) => n.record ? (n.record.recordType ? n.record.recordType + " " : "") + n.record.recordName : "" },
        { title: "Zone", get: (n) => n.zone ? n.zone.zoneName || "" : "" },
        { title: "Read", get: (n) => n.read || !mine(n) ? (n.read ? "read" : "unread")
          : h("button", { type: "button", class: "notifications-read", onclick: () => markRead([n.notificationID], again) }, "Mark read") },
        { title: "Payload", get: (n) => payload(n) },
      ], items, (n) => ({ id: n.notificationID }), "No notifications yet: a subscription's matching change makes one."),
    ];
  });

  // ---------------------------------------------------------------- shares

  /// A small form in a row whose submit button has class cls (a row's action: ids would repeat); never navigates.
  function rowForm(cls, label, fields, submitLabel, action) {
    const submit = h("button", { class: cls, type: "submit" }, submitLabel);
    return onSubmit(h("form", { class: "inline", "aria-label": label }, fields, submit), submit, action);
  }

  /// Runs a share action as the picked user (POST /_ck/shares/<action>, as `ck share <action> --as USER`).
  async function shareAction(action, body, done, again) {
    const answer = await attempt(ck.control("POST", "/_ck/shares/" + action, Object.assign({ user: ck.state.user }, body)));
    if (!answer) return;
    ck.toast(done);
    again();
  }

  /// What the picked user may do with a share: the owner changes it; an invited user accepts or leaves it.
  function shareActions(s, again) {
    const user = ck.state.user;
    if (!user) return "";
    const target = { zone: s.zone, share: s.recordName };
    if (s.owner === user) {
      const who = h("input", { class: "shares-invite-user", type: "text", placeholder: "user", "aria-label": "User to invite to " + s.recordName });
      const perm = h("select", { class: "shares-invite-permission", "aria-label": "Permission" },
        h("option", { value: "readOnly" }, "readOnly"), h("option", { value: "readWrite" }, "readWrite"));
      const pub = h("select", { class: "shares-update-permission", "aria-label": "Public permission of " + s.recordName },
        ["none", "readOnly", "readWrite"].map((p) => h("option", { value: p }, p)));
      pub.value = s.publicPermission;
      const title = h("input", { class: "shares-update-title", type: "text", placeholder: "title", "aria-label": "Title of " + s.recordName });
      title.value = s.title || "";
      const others = (s.participants || []).filter((p) => p.role !== "owner").map((p) => p.user);
      const gone = h("select", { class: "shares-remove-user", "aria-label": "Participant to remove from " + s.recordName },
        others.map((u) => h("option", { value: u }, u)));
      return h("div", { class: "actions" },
        rowForm("shares-invite", "Invite to " + s.recordName, [who, perm], "Invite", () =>
          shareAction("invite", Object.assign({ participant: who.value.trim(), permission: perm.value }, target),
            who.value.trim() + " invited to " + s.recordName, again)),
        rowForm("shares-update", "Change " + s.recordName, [pub, title], "Update", () => {
          // Only what changed: a new public permission drops pending participants, as in CloudKit.
          const change = {};
          if (pub.value !== s.publicPermission) change.publicPermission = pub.value;
          if (title.value !== (s.title || "")) change.title = title.value;
          return shareAction("update", Object.assign(change, target), "Share " + s.recordName + " updated", again);
        }),
        others.length === 0 ? null : rowForm("shares-remove", "Remove from " + s.recordName, [gone], "Remove", () =>
          shareAction("remove", Object.assign({ participant: gone.value }, target), gone.value + " removed from " + s.recordName, again)),
        armed("Delete", "shares-delete", () => shareAction("delete", target, "Share " + s.recordName + " deleted", again)));
    }
    const me = (s.participants || []).find((p) => p.user === user);
    // A public share is joined by anyone with its URL; an invited user accepts until it has.
    if ((me && me.acceptance === "pending") || (!me && s.publicPermission !== "none")) {
      return h("button", { class: "shares-accept", type: "button",
        onclick: () => shareAction("accept", { url: s.url }, user + " accepted " + s.recordName, again) }, "Accept");
    }
    if (me && me.acceptance === "accepted") {
      return armed("Leave", "shares-leave", () => shareAction("leave", { url: s.url }, user + " left " + s.recordName, again));
    }
    return "";
  }

  section("shares", "Shares", async (stale, again) => {
    const answer = await attempt(ck.control("GET", "/_ck/shares"));
    if (stale()) return null;
    if (answer === undefined) return [h("p", { class: "empty" }, "The shares could not be listed.")];
    const user = ck.state.user;
    const root = input("shares-root", "Root record", "empty: the whole zone");
    const zone = input("shares-zone", "Zone", "e.g. Notes");
    zone.el.value = ck.state.zone || "";
    const pub = selectOf("shares-public-permission", "Public permission", ["none", "readOnly", "readWrite"], "none");
    const title = input("shares-title", "Title", "optional");
    const create = form("shares-create", "Share a record (and every record below it) or a whole zone as " + who(),
      [root.label, zone.label, pub.label, title.label], "Create share", async () => {
        const body = { zone: zone.el.value.trim(), publicPermission: pub.el.value };
        if (root.el.value.trim()) body.root = root.el.value.trim();
        if (title.el.value) body.title = title.el.value;
        await shareAction("create", body, "Share created", again);
      });
    // Share actions act as a user (as ck share --as): nobody signed in has no share to act on.
    if (!user) create.querySelector("fieldset").disabled = true;
    return [
      h("p", { class: "muted" }, "Every share of " + ck.state.environment + " with its participants (ck share list, ck share show)."),
      user ? h("p", { class: "muted" }, "Actions act as " + user + " (ck share … --as " + user + ").")
        : h("p", { class: "muted", id: "shares-anonymous" }, "Pick a user to act on shares: anonymous can't create, invite, accept or leave."),
      list("shares-list", [
        { title: "Share", get: (s) => s.recordName },
        { title: "Zone", get: (s) => s.zone },
        { title: "Owner", get: (s) => s.owner },
        { title: "Root record", get: (s) => s.rootRecord || "(whole zone)" },
        { title: "Public permission", get: (s) => s.publicPermission },
        { title: "URL", get: (s) => s.url || "" },
        { title: "Participants", get: (s) => h("ul", { class: "participants" }, (s.participants || []).map((p) =>
          h("li", { "data-id": p.user }, p.user + " (" + p.role + ", " + p.permission + ", " + p.acceptance + ")"))) },
        { title: "Title", get: (s) => s.title || "" },
        { title: "Actions", get: (s) => shareActions(s, again) },
      ], answer.shares || [], (s) => ({ id: s.recordName, owner: s.owner }), "No shares."),
      create,
      unreadable(answer),
    ];
  });

  // ---------------------------------------------------------------- users and roles

  section("users", "Users and roles", async (stale, again) => {
    const answer = await attempt(ck.control("GET", "/_ck/users"));
    if (stale()) return null;
    if (answer === undefined) return [h("p", { class: "empty" }, "The users could not be listed.")];
    const statuses = answer.accountStatuses || ["available", "noAccount", "restricted", "couldNotDetermine", "temporarilyUnavailable"];
    const roles = (answer.roles || []).map((r) => r.name);

    const accountCell = (u) => {
      const s = h("select", { class: "users-status", "aria-label": "Account status of " + u.name },
        statuses.map((st) => h("option", { value: st }, st)));
      s.value = u.accountStatus;
      const set = h("button", { type: "button", class: "users-set-account" }, "Set");
      set.addEventListener("click", async () => {
        ck.clearError();
        const r = await attempt(ck.control("POST", "/_ck/users/account", { user: u.name, status: s.value }));
        if (!r) return;
        ck.toast(u.name + "'s account is " + r.accountStatus);
        again();
      });
      return h("span", { class: "inline" }, s, set);
    };

    const roleCell = (u) => {
      const held = (u.roles || []).map((role) => h("span", { class: "role", "data-id": role }, role + " ",
        h("button", { type: "button", class: "users-revoke", title: "Take " + role + " from " + u.name, "aria-label": "Revoke " + role },
          "×")));
      for (const chip of held) {
        const role = chip.dataset.id;
        chip.querySelector("button").addEventListener("click", async () => {
          ck.clearError();
          if (!await attempt(ck.control("POST", "/_ck/roles/revoke", { role: role, user: u.name }))) return;
          ck.toast(role + " taken from " + u.name);
          again();
        });
      }
      const free = roles.filter((r) => !(u.roles || []).includes(r));
      if (free.length === 0) return h("span", { class: "inline" }, held);
      const pick = h("select", { class: "users-role", "aria-label": "Role to give " + u.name }, free.map((r) => h("option", { value: r }, r)));
      const assign = h("button", { type: "button", class: "users-assign" }, "Assign");
      assign.addEventListener("click", async () => {
        ck.clearError();
        if (!await attempt(ck.control("POST", "/_ck/roles/assign", { role: pick.value, user: u.name }))) return;
        ck.toast(pick.value + " given to " + u.name);
        again();
      });
      return h("span", { class: "inline" }, held, pick, assign);
    };

    const name = input("users-name", "Name", "e.g. carol");
    const create = form("users-create", "Create a user (ck user create)", [name.label], "Create user", async () => {
      const r = await attempt(ck.control("POST", "/_ck/users", { name: name.el.value.trim() }));
      if (!r) return;
      ck.toast(r.created ? "User " + r.user.name + " created" : "User " + r.user.name + " was already listed");
      again();
    });

    return [
      h("p", { class: "muted" }, "The container's users; roles are " + ck.state.environment + "'s (they apply to the public database)."),
      list("users-list", [
        { title: "Name", get: (u) => u.name },
        { title: "User record name", get: (u) => u.userRecordName },
        { title: "Account status", get: accountCell },
        { title: "Roles", get: roleCell },
      ], answer.users || [], (u) => ({ id: u.name }), "No users yet: a user is listed once it writes or is created."),
      create,
      h("h3", null, "Roles"),
      list("users-roles", [
        { title: "Role", get: (r) => r.name },
        { title: "Users", get: (r) => (r.users || []).join(", ") },
      ], answer.roles || [], (r) => ({ id: r.name }), "No custom roles (CREATE ROLE in the schema makes one)."),
    ];
  });

  // ---------------------------------------------------------------- quotas

  section("quotas", "Quotas and usage", async (stale, again) => {
    const answer = await attempt(ck.control("GET", "/_ck/quotas"));
    if (stale()) return null;
    if (answer === undefined) return [h("p", { class: "empty" }, "The quotas could not be read.")];
    const rows = [Object.assign({ id: "public", label: "public database" }, answer.public || {})]
      .concat((answer.users || []).map((u) => Object.assign({ id: u.user, label: u.user }, u)));
    const target = selectOf("quotas-target", "Of", [{ value: "", label: "public database" }]
      .concat((answer.users || []).map((u) => ({ value: u.user, label: u.user }))), "");
    const value = input("quotas-value", "Quota", "e.g. 5MB, 1GiB, bytes, or none");
    const set = form("quotas-set", "Set a quota (ck quota set)", [target.label, value.label], "Set quota", async () => {
      const text = value.el.value.trim();
      const n = Number(text);
      const quota = text === "" ? "" : /^[0-9]+$/.test(text) && Number.isSafeInteger(n) ? n : text;
      const body = target.el.value === "" ? { public: true, quota: quota } : { user: target.el.value, quota: quota };
      const r = await attempt(ck.control("POST", "/_ck/quotas", body));
      if (!r) return;
      ck.toast("Quota of " + (r.user || "the public database") + ": " + (r.quota === null ? "none" : r.quota + " bytes"));
      again();
    });
    return [
      h("p", { class: "muted" }, "Storage counted in " + ck.state.environment + ": a user's private database, and the container's public database (ck quota show)."),
      list("quotas-list", [
        { title: "Database", get: (r) => r.label },
        { title: "Quota", get: (r) => bytes(r.quota) },
        { title: "Used", get: (r) => r.error ? h("span", { class: "unreadable" }, r.error) : bytes(r.used) },
        { title: "By zone", get: (r) => counts(r.byZone) },
        { title: "By record type", get: (r) => counts(r.byRecordType) },
      ], rows, (r) => ({ id: r.id }), "No quotas."),
      set,
    ];
  });

  // ---------------------------------------------------------------- faults

  // The errors `ck fault add --error` takes (FaultRule.injectable), in its help's order.
  const faultErrors = ["internalError", "networkUnavailable", "networkFailure", "badContainer", "serviceUnavailable",
    "requestRateLimited", "missingEntitlement", "notAuthenticated", "permissionFailure", "unknownItem", "invalidArguments",
    "resultsTruncated", "serverRecordChanged", "serverRejectedRequest", "assetFileNotFound", "assetFileModified",
    "incompatibleVersion", "constraintViolation", "operationCancelled", "changeTokenExpired", "zoneBusy", "badDatabase",
    "quotaExceeded", "zoneNotFound", "limitExceeded", "userDeletedZone", "tooManyParticipants", "alreadyShared",
    "referenceViolation", "managedAccountRestricted", "participantMayNeedVerification", "serverResponseLost",
    "assetNotAvailable", "accountTemporarilyUnavailable", "participantAlreadyInvited"];
  const faultOps = ["any", "save", "fetch", "delete", "query", "zone", "subscription", "changes", "notification"];

  function target(r) {
    const parts = [];
    for (const k of ["recordType", "recordName", "zone", "database", "user"]) if (r[k] !== undefined) parts.push(k + " " + r[k]);
    return parts.join(", ");
  }

  section("faults", "Faults", async (stale, again) => {
    const answer = await attempt(ck.control("GET", "/_ck/faults"));
    if (stale()) return null;
    if (answer === undefined) return [h("p", { class: "empty" }, "The fault rules could not be listed.")];
    const rules = answer.faults || [];

    const error = selectOf("faults-error", "Error", faultErrors, "serviceUnavailable");
    const op = selectOf("faults-op", "Operation", faultOps, "any");
    const type = input("faults-type", "Record type", "save/delete only");
    const record = input("faults-record", "Record", "save/delete only");
    const zone = input("faults-zone", "Zone", "any");
    const database = selectOf("faults-database", "Database", [{ value: "", label: "any" }, "public", "private", "shared"], "");
    const user = input("faults-user", "User", "any");
    const retry = input("faults-retry-after", "Retry after (s)", "2");
    const times = input("faults-times", "Times", "every time");
    const probability = input("faults-probability", "Probability", "0 to 1");
    const seed = input("faults-seed", "Seed", "");
    const after = input("faults-after", "After", "0");
    const afterCommit = checkbox("faults-after-commit", "after commit (networkFailure)");
    const id = input("faults-id", "ID", "f1, f2, …");
    const add = form("faults-add", "Add a fault rule (ck fault add)",
      [error.label, op.label, type.label, record.label, zone.label, database.label, user.label, retry.label, times.label,
        probability.label, seed.label, after.label, afterCommit.label, id.label], "Add rule", async () => {
        const rule = { error: error.el.value };
        if (op.el.value !== "any") rule.op = op.el.value;
        for (const [k, f] of [["type", type], ["record", record], ["zone", zone], ["user", user], ["id", id]]) {
          if (f.el.value.trim()) rule[k] = f.el.value.trim();
        }
        if (database.el.value) rule.database = database.el.value;
        for (const [k, f] of [["retryAfter", retry], ["times", times], ["probability", probability], ["after", after]]) {
          const v = numberOr(f.el.value);
          if (v !== undefined) rule[k] = v;
        }
        if (seed.el.value.trim()) rule.seed = seed.el.value.trim();
        if (afterCommit.el.checked) rule.afterCommit = true;
        const r = await attempt(ck.control("POST", "/_ck/faults", rule));
        if (!r) return;
        ck.toast("Fault rule " + r.id + " added: " + r.error);
        again();
      });

    const clearAll = armed("Clear all", "faults-clear-all", async () => {
      const r = await attempt(ck.control("DELETE", "/_ck/faults"));
      if (!r) return;
      ck.toast("Cleared " + (r.cleared || []).length + " fault rules");
      again();
    });
    clearAll.id = "faults-clear";

    return [
      h("p", { class: "muted" }, "Rules of " + ck.state.environment + ": a matching operation fails with the error, from the command line and Web Services alike (ck fault list)."),
      list("faults-list", [
        { title: "ID", get: (r) => r.id },
        { title: "Error", get: (r) => r.error + " (" + r.code + ")" },
        { title: "Operation", get: (r) => r.op },
        { title: "Only", get: (r) => target(r) },
        { title: "After", get: (r) => String(r.after) },
        { title: "Times left", get: (r) => r.timesLeft === undefined ? "every time" : String(r.timesLeft) },
        { title: "Probability", get: (r) => r.probability === undefined ? "" : String(r.probability) + (r.seed ? " (seed " + r.seed + ")" : "") },
        { title: "Retry after", get: (r) => r.retryAfter === undefined ? "" : r.retryAfter + " s" },
        { title: "Seen", get: (r) => String(r.seen) },
        { title: "Fired", get: (r) => String(r.fired) + (r.afterCommit ? " (after commit)" : "") },
        { title: "", get: (r) => {
          const b = h("button", { type: "button", class: "faults-clear-one", "aria-label": "Clear rule " + r.id }, "Clear");
          b.addEventListener("click", async () => {
            ck.clearError();
            const c = await attempt(ck.control("DELETE", "/_ck/faults/" + encodeURIComponent(r.id)));
            if (!c) return;
            ck.toast("Fault rule " + r.id + " cleared");
            again();
          });
          return b;
        } },
      ], rules, (r) => ({ id: r.id }), "No fault rules."),
      rules.length > 0 ? h("div", { class: "actions" }, clearAll) : null,
      add,
    ];
  });
})();
