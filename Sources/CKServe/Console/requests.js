"use strict";
// The Requests section (docs/console.md): ck serve's request log, live. Entries come from the server-sent events
// stream GET /_ck/requests/events (polling GET /_ck/requests?after= when a stream cannot be had); a row opens the
// entry's bodies from GET /_ck/requests/<seq>. Everything is built with ck.h and text nodes: a body holding markup
// shows as text.
(function () {
    const MAX_ROWS = 1000;          // rows kept in the DOM; the server keeps its own last 1000
    const POLL_MS = 1000;           // polling interval when the event stream is not available
    const MAX_HELD = 1000;          // entries held while paused (the oldest go first past this)

    let root = null;                // the section's content, built once and kept across renders
    let tbody = null;
    let detail = null;
    let pauseButton = null;
    let statusLine = null;
    let started = false;
    let paused = false;
    let held = [];                  // entries that arrived while paused, oldest first
    let lastSeq = 0;                // the highest sequence number shown or held: a duplicate is dropped
    let selected = null;            // the seq whose detail is shown
    let source = null;
    let pollTimer = null;

    const columns = [
        ["method", "Method"], ["path", "Path"], ["operation", "Operation"],
        ["status", "Status"], ["code", "Error"], ["duration", "ms"],
    ];

    function isRefusal(entry) {
        return entry.status >= 400 || Boolean(entry.serverErrorCode);
    }

    function duration(entry) {
        return typeof entry.duration === "number" ? entry.duration.toFixed(1) : "";
    }

    // A path with a line-break opportunity after each '/', so a narrow column wraps between its parts.
    function breakable(path) {
        return path.split("/").map((part, i, all) => i < all.length - 1 ? [part + "/", ck.h("wbr", {})] : part);
    }

    function row(entry) {
        const tr = ck.h("tr", {
            "data-seq": String(entry.seq),
            tabindex: "0",
            title: "Show request " + entry.seq,
            onclick: () => open(entry),
            onkeydown: (ev) => {
                if (ev.key === "Enter" || ev.key === " ") {
                    ev.preventDefault();
                    open(entry);
                }
            },
        },
            ck.h("td", {class: "method"}, entry.method || ""),
            ck.h("td", {class: "path"}, breakable(entry.path || "")),
            ck.h("td", {class: "operation"}, entry.operation || ""),
            ck.h("td", {class: "status"}, String(entry.status ?? "")),
            ck.h("td", {class: "code"}, entry.serverErrorCode || ""),
            ck.h("td", {class: "duration"}, duration(entry)));
        if (isRefusal(entry)) tr.classList.add("refused");
        if (entry.seq === selected) tr.classList.add("selected");
        return tr;
    }

    // Adds entries (oldest first) to the top of the table, newest on top, keeping at most MAX_ROWS.
    function show(entries) {
        if (!tbody || entries.length === 0) return;
        const fragment = document.createDocumentFragment();
        for (let i = entries.length - 1; i >= 0; i--) fragment.appendChild(row(entries[i]));
        tbody.insertBefore(fragment, tbody.firstChild);
        while (tbody.rows.length > MAX_ROWS) tbody.deleteRow(tbody.rows.length - 1);
        updateStatus();
    }

    function receive(entries) {
        const fresh = entries.filter((e) => typeof e.seq === "number" && e.seq > lastSeq);
        if (fresh.length === 0) return;
        lastSeq = fresh[fresh.length - 1].seq;
        if (paused) {
            held = held.concat(fresh);
            if (held.length > MAX_HELD) held = held.slice(held.length - MAX_HELD);
            updateStatus();
        } else {
            show(fresh);
        }
    }

    function updateStatus() {
        if (!statusLine) return;
        const shown = tbody ? tbody.rows.length : 0;
        let text = shown + (shown === 1 ? " request" : " requests");
        if (paused) text += " · paused, " + held.length + " waiting";
        else if (pollTimer !== null) text += " · polling";
        else if (source) text += " · live";
        statusLine.textContent = text;
    }

    // --- the feed: server-sent events, or polling when the stream fails before it ever opened ---
    function connect() {
        if (typeof EventSource !== "function") {
            poll();
            return;
        }
        let opened = false;
        source = new EventSource("/_ck/requests/events");
        source.addEventListener("open", () => {
            opened = true;
            updateStatus();
        });
        source.addEventListener("request", (ev) => {
            let entry;
            try {
                entry = JSON.parse(ev.data);
            } catch (_) {
                return; // not an entry: the stream's contract says data is one entry's JSON
            }
            receive([entry]);
        });
        source.addEventListener("error", () => {
            // A stream that opened once reconnects by itself (with Last-Event-ID). One that never opened (an older
            // server, a refusal) will not: poll the list instead.
            if (!opened || source.readyState === EventSource.CLOSED) {
                source.close();
                source = null;
                poll();
            }
        });
    }

    function poll() {
        if (pollTimer !== null) return;
        const tick = () => {
            ck.control("GET", "/_ck/requests?after=" + lastSeq)
                .then((answer) => receive(Array.isArray(answer.requests) ? answer.requests : []))
                .catch(() => { /* the server is gone or busy: try again at the next tick */ })
                .finally(() => { pollTimer = setTimeout(tick, POLL_MS); });
        };
        pollTimer = setTimeout(tick, 0);
        updateStatus();
    }

    // --- actions ---
    function togglePause() {
        paused = !paused;
        pauseButton.textContent = paused ? "Resume" : "Pause";
        pauseButton.setAttribute("aria-pressed", paused ? "true" : "false");
        if (!paused) {
            const waiting = held;
            held = [];
            show(waiting);
        }
        updateStatus();
    }

    function clearLog() {
        ck.control("DELETE", "/_ck/requests")
            .then((answer) => {
                tbody.replaceChildren();
                held = [];
                selected = null;
                detail.replaceChildren();
                detail.hidden = true;
                ck.toast("Cleared " + (answer.cleared ?? 0) + " requests");
                updateStatus();
            })
            .catch((err) => ck.showError(err));
    }

    // A body as the log keeps it (text, maybe cut): indented when it is JSON, as it came otherwise.
    function bodyText(text) {
        if (typeof text !== "string" || text === "") return "(empty)";
        try {
            return JSON.stringify(JSON.parse(text), null, 2);
        } catch (_) {
            return text;
        }
    }

    function field(label, value, cls) {
        if (value === undefined || value === null || value === "") return null;
        return [ck.h("dt", {}, label), ck.h("dd", cls ? {class: cls} : {}, String(value))];
    }

    function body(title, cls, text, truncated) {
        return ck.h("div", {class: "body"},
            ck.h("h3", {}, title, truncated ? " (cut at 16 KiB)" : null),
            ck.h("pre", {class: cls, tabindex: "0"}, bodyText(text)));
    }

    // Shows an entry: the row's facts at once, the bodies when `full` (GET /_ck/requests/<seq>) has come, or `note`.
    function renderDetail(entry, full, note) {
        const e = full || entry;
        // replaceChildren takes nodes, not arrays: the bodies' pair is spread by flat().
        detail.replaceChildren(...[
            ck.h("h2", {}, "Request " + e.seq + ": " + (e.method || "") + " " + (e.path || "")),
            ck.h("dl", {class: "facts"},
                field("Time", e.time),
                field("Status", e.status),
                field("Operation", e.operation),
                field("Container", e.container),
                field("Database", e.database),
                field("Caller", e.caller),
                field("Duration (ms)", duration(e)),
                field("Request ID", e.requestID),
                field("Error", e.serverErrorCode, "code"),
                field("Reason", e.reason, "reason"),
                field("Rule", e.rule, "rule")),
            full
                ? [body("Request body", "request-body", full.requestBody, full.requestBodyTruncated),
                   body("Response body", "response-body", full.responseBody, full.responseBodyTruncated)]
                : ck.h("p", {class: "muted"}, note || "Loading the bodies…"),
            ck.h("button", {type: "button", id: "request-close", onclick: close}, "Close")].flat());
        detail.hidden = false;
    }

    function open(entry) {
        selected = entry.seq;
        for (const tr of tbody.querySelectorAll("tr.selected")) tr.classList.remove("selected");
        const tr = tbody.querySelector('tr[data-seq="' + entry.seq + '"]');
        if (tr) tr.classList.add("selected");
        renderDetail(entry, null);
        ck.control("GET", "/_ck/requests/" + entry.seq)
            .then((full) => {
                if (selected === entry.seq) renderDetail(entry, full);
            })
            .catch((err) => {
                if (selected !== entry.seq) return;
                // Gone from the server's ring (or an older server without bodies): show what the row knows.
                renderDetail(entry, null, "The bodies are no longer kept by the server.");
                ck.showError(err);
            });
    }

    function close() {
        selected = null;
        for (const tr of tbody.querySelectorAll("tr.selected")) tr.classList.remove("selected");
        detail.replaceChildren();
        detail.hidden = true;
    }

    function build() {
        pauseButton = ck.h("button", {type: "button", id: "requests-pause", "aria-pressed": "false",
                                      onclick: togglePause}, "Pause");
        statusLine = ck.h("span", {class: "requests-status", role: "status"});
        tbody = ck.h("tbody", {});
        detail = ck.h("div", {id: "request-detail", "aria-live": "polite"});
        detail.hidden = true;
        root = ck.h("div", {class: "requests"},
            ck.h("div", {class: "toolbar"},
                pauseButton,
                ck.h("button", {type: "button", id: "requests-clear", onclick: clearLog}, "Clear"),
                statusLine),
            ck.h("div", {class: "requests-layout"},
                ck.h("div", {class: "table-wrap"},
                    ck.h("table", {id: "requests"},
                        ck.h("thead", {}, ck.h("tr", {}, columns.map(([cls, title]) =>
                            ck.h("th", {class: cls}, title)))),
                        tbody)),
                detail));
        updateStatus();
    }

    ck.section("requests", "Requests", (el) => {
        if (!root) build();
        if (root.parentNode !== el) el.replaceChildren(root);
        if (!started) {
            started = true;
            connect();
        }
    });
})();
