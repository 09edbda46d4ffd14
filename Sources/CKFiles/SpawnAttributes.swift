#if canImport(Glibc)
import Glibc
#endif

/// posix_spawn attributes for a child that starts clean: no signal blocked, and `defaultSignals` back to default
/// handling (what ck catches or ignores must not be inherited), optionally in a process group of its own.
package final class SpawnAttributes {
    package var attr = posix_spawnattr_t()

    package init(defaultSignals: [Int32], ownProcessGroup: Bool = false) {
        posix_spawnattr_init(&attr)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in defaultSignals { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            // pgid 0: the child's own pid, so everything it starts can be signalled as one group.
            posix_spawnattr_setpgroup(&attr, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attr, Int16(flags))
    }

    deinit { posix_spawnattr_destroy(&attr) }
}
