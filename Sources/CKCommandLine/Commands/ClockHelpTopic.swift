import CKCore

/// `ck help clock`: the store's clock, CK_NOW, and what reads them, on one page.
enum ClockHelpTopic {
    static func text() -> String {
        """
        THE STORE'S CLOCK

        Everything ck stamps or compares with "now" reads the store's clock:
        records' created and modified times, deletions, notifications, the
        throttling windows of fault rules, query cursors' lifetime and the expiry
        of web auth tokens. By default it is the real time.

        ck clock show                the store's time and how the clock is set
        ck clock set <instant>       fix it at an instant (it stays there);
                                     --running lets it run on from there
        ck clock advance <duration>  move it forward: 30s, 5m, 2h, 1d, 1h30m, 250ms
        ck clock reset               back to the real time
        CK_NOW=<instant> ck ...      fix now for that one command only

        An instant is ISO 8601 (2099-01-01T00:00:00Z) or milliseconds since 1970.
        The setting lives in clock.json at the store root (no file: the real
        time); a running 'ck serve' follows it from its next request.

        Going back is refused unless --backwards: records saved afterwards would be
        older than those already saved, and modification times would go back.

        Throttling: once a requestRateLimited, zoneBusy or serviceUnavailable rule
        (or any rule with --retry-after) fires, it refuses again until its
        retryAfter has passed on this clock; 'ck clock advance' ends the window.
        Against a fixed clock 'ck sync' does not sleep: it stops and says when to
        retry. Query cursors (--cursor, continuationMarker) expire 1 hour
        after they were issued. Change tokens never expire with time.

        """
    }
}
